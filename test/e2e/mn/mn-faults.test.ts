/**
 * Bad input and faults: each gets the exception the spec names, and nothing is stored (no row, no bytes, no temp
 * file left behind).
 */
import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type Caller, call, create, enc, errorOf, form } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { pollUntil } from "../../helpers/time/eventually.ts";

describe("bad input and faults", () => {
  let node: TestNode;
  let admin: Caller;
  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
  });
  after(() => node.close());

  /** Files under the store: committed objects and temp files. */
  async function storeFiles(): Promise<string[]> {
    const root = path.join(node.dataDir, "store");
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  }

  async function assertNothingStored(pid: string, filesBefore: string[]) {
    assert.equal((await call(admin, "GET", `/meta/${enc(pid)}`)).status, 404);
    assert.deepEqual(await storeFiles(), filesBefore);
  }

  it("a checksum or size that does not match the bytes: InvalidSystemMetadata, nothing stored", async () => {
    const before = await storeFiles();
    const pid = uniquePid();
    const checksum = await errorOf(
      await create(admin, pid, Buffer.from("abc"), { checksum: "0".repeat(40) }),
    );
    assert.equal(checksum.name, "InvalidSystemMetadata");
    assert.equal(checksum.detailCode, "1180");
    assert.match(checksum.body, /checksum/);
    const size = await errorOf(await create(admin, pid, Buffer.from("abc"), { size: 4 }));
    assert.equal(size.name, "InvalidSystemMetadata");
    assert.match(size.body, /size/);
    await assertNothingStored(pid, before);
  });

  it("malformed XML and XML with a DOCTYPE or entities are refused", async () => {
    const before = await storeFiles();
    const pid = uniquePid();
    const bytes = Buffer.from("x");
    const good = sysmetaXml(pid, bytes);
    const documents = [
      good.slice(0, 80),
      good.replace(
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
      ),
      good.replace("<formatId>text/csv</formatId>", "<formatId>&e;</formatId>"),
      good.replace(/<checksum[^>]*>[^<]*<\/checksum>/, ""),
      good.replace("<size>1</size>", "<size>-1</size>"),
    ];
    for (const xml of documents) {
      const response = await errorOf(
        await call(admin, "POST", "/object", { body: form({ pid, object: bytes, sysmeta: { xml } }) }),
      );
      assert.equal(response.name, "InvalidSystemMetadata", xml);
    }
    await assertNothingStored(pid, before);
  });

  it("missing or repeated multipart parts are InvalidRequest; parts come in any order", async () => {
    const pid = uniquePid();
    const bytes = Buffer.from("order");
    const xml = sysmetaXml(pid, bytes);
    const noObject = await errorOf(
      await call(admin, "POST", "/object", { body: form({ pid, sysmeta: { xml } }) }),
    );
    assert.equal(noObject.name, "InvalidRequest");
    assert.match(noObject.body, /object/);
    const noSysmeta = await errorOf(
      await call(admin, "POST", "/object", { body: form({ pid, object: bytes }) }),
    );
    assert.equal(noSysmeta.name, "InvalidRequest");
    const notMultipart = await errorOf(await call(admin, "POST", "/object", { body: "pid=x" }));
    assert.equal(notMultipart.name, "InvalidRequest");
    const reordered = await call(admin, "POST", "/object", {
      body: form({ sysmeta: { xml }, object: bytes, pid }),
    });
    assert.equal(reordered.status, 200, await reordered.text());
  });

  it("a client that disconnects mid-upload leaves no temp file and no object", async () => {
    const before = await storeFiles();
    const pid = uniquePid();
    const boundary = "----d1nodetestboundary";
    const head = [
      `--${boundary}\r\nContent-Disposition: form-data; name="pid"\r\n\r\n${pid}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="sysmeta"; filename="s.xml"\r\n\r\n`,
      `${sysmetaXml(pid, Buffer.alloc(0), { size: 50_000_000 })}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="object"; filename="o.bin"\r\n\r\n`,
    ].join("");
    const target = new URL(`${node.baseUrl}/v2/object`);
    await new Promise<void>((resolve) => {
      const req = request(target, {
        method: "POST",
        headers: {
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "content-length": String(60_000_000),
          authorization: `Bearer ${admin.token}`,
        },
      });
      req.on("error", () => resolve());
      req.write(head);
      req.write(Buffer.alloc(4 * 1024 * 1024, 7), () => setTimeout(() => req.destroy(), 200));
      req.on("close", () => resolve());
    });
    // The node hears of the disconnect once it has read what the client sent before it: on a busy machine that
    // takes a moment.
    await pollUntil(storeFiles, (files) => files.length === before.length, 10_000);
    await assertNothingStored(pid, before);
  });

  it("dates, counts and identifiers out of range are InvalidRequest with a description", async () => {
    const long = await errorOf(await call(admin, "GET", `/meta/${"y".repeat(801)}`));
    assert.equal(long.name, "NotFound");
    const spaced = await errorOf(
      await call(admin, "POST", "/object", {
        body: form({
          pid: "has space",
          object: Buffer.from("z"),
          sysmeta: { xml: sysmetaXml("has space", Buffer.from("z")) },
        }),
      }),
    );
    assert.ok(["InvalidRequest", "InvalidSystemMetadata"].includes(spaced.name), spaced.body);
    assert.match(spaced.body, /whitespace/);
    const date = await errorOf(await call(admin, "GET", "/object?toDate=2026-13-45"));
    assert.equal(date.name, "InvalidRequest");
    assert.match(date.body, /toDate/);
  });
});
