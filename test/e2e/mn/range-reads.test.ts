/**
 * Range, entity tags and conditional reads on MNRead.get, MNRead.getReplica and describe over a real listening
 * node, by fetch and by curl: 206 with Content-Range, 416, 304, If-Range, and one read event per call that
 * delivers bytes.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { type Caller, call, create, enc, form, okXml, url } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const run = promisify(execFile);

for (const dialect of testDialects()) {
  describe(`Range and conditional reads (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let anon: Caller;
    // One object read whole from memory (small), one streamed from its file.
    const small = { pid: uniquePid("range-small"), bytes: randomBytes(1000) };
    const large = { pid: uniquePid("range-large"), bytes: randomBytes(300 * 1024) };
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      anon = { baseUrl: node.baseUrl };
      for (const { pid, bytes } of [small, large]) {
        const response = await create(admin, pid, bytes);
        assert.equal(response.status, 200, await response.text());
      }
    });

    const get = (pid: string, headers: Record<string, string> = {}, path = "/object/") =>
      call(path === "/replica/" ? admin : anon, "GET", `${path}${enc(pid)}`, { headers });
    const readEvents = async (pid: string, event = "read"): Promise<number> => {
      const log = await okXml(await call(admin, "GET", `/log?idFilter=${enc(pid)}&event=${event}&count=0`));
      return Number(/total="(\d+)"/.exec(log)?.[1]);
    };
    /** The event count reaches `expected` and stays there (entries are written in batches). */
    const assertEvents = async (pid: string, expected: number, event = "read") => {
      await eventually(`${expected} ${event} events`, async () =>
        (await readEvents(pid, event)) === expected ? true : undefined,
      );
      await node.node.ctx.db.events.flush();
      assert.equal(await readEvents(pid, event), expected);
    };

    for (const object of [small, large]) {
      const size = object.bytes.length;
      it(`get and describe send a strong ETag, Last-Modified and Accept-Ranges (${size} bytes)`, async () => {
        const whole = await get(object.pid);
        assert.equal(whole.status, 200);
        assert.deepEqual(Buffer.from(await whole.arrayBuffer()), object.bytes);
        const etag = whole.headers.get("etag") ?? "";
        assert.match(etag, /^"sha256-[0-9a-f]{64}"$/);
        assert.equal(whole.headers.get("accept-ranges"), "bytes");
        const head = await call(anon, "HEAD", `/object/${enc(object.pid)}`);
        assert.equal(head.status, 200);
        assert.equal(head.headers.get("etag"), etag);
        assert.equal(head.headers.get("last-modified"), whole.headers.get("last-modified"));
        assert.equal(head.headers.get("content-length"), String(size));
      });

      it(`first, middle, last, open and suffix ranges are 206 with Content-Range (${size} bytes)`, async () => {
        const cases: [string, number, number][] = [
          ["bytes=0-99", 0, 99],
          [`bytes=${size / 2}-${size / 2 + 99}`, size / 2, size / 2 + 99],
          [`bytes=${size - 100}-`, size - 100, size - 1],
          ["bytes=-100", size - 100, size - 1],
          [`bytes=10-${size * 2}`, 10, size - 1],
        ];
        for (const [range, start, end] of cases) {
          const response = await get(object.pid, { range });
          assert.equal(response.status, 206, range);
          assert.equal(response.headers.get("content-range"), `bytes ${start}-${end}/${size}`);
          assert.equal(response.headers.get("content-length"), String(end - start + 1));
          assert.deepEqual(Buffer.from(await response.arrayBuffer()), object.bytes.subarray(start, end + 1));
        }
      });

      it(`unsatisfiable ranges are 416 with Content-Range bytes */size (${size} bytes)`, async () => {
        const response = await get(object.pid, { range: `bytes=${size}-` });
        assert.equal(response.status, 416);
        assert.equal(response.headers.get("content-range"), `bytes */${size}`);
        assert.equal((await response.arrayBuffer()).byteLength, 0);
      });
    }

    it("several ranges, malformed ranges and other units get the whole object", async () => {
      for (const range of ["bytes=0-9,100-109", "bytes=x-y", "lines=0-9"]) {
        const response = await get(small.pid, { range });
        assert.equal(response.status, 200, range);
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), small.bytes);
      }
    });

    it("If-None-Match and If-Modified-Since answer 304 on get and describe; a changed tag gets the bytes", async () => {
      const { headers } = await get(small.pid);
      const etag = headers.get("etag") ?? "";
      const modified = headers.get("last-modified") ?? "";
      const conditions: Record<string, string>[] = [
        { "if-none-match": etag },
        { "if-modified-since": modified },
      ];
      for (const condition of conditions) {
        const response = await get(small.pid, condition);
        assert.equal(response.status, 304);
        assert.equal(response.headers.get("etag"), etag);
        assert.equal((await response.arrayBuffer()).byteLength, 0);
        const head = await call(anon, "HEAD", `/object/${enc(small.pid)}`, { headers: condition });
        assert.equal(head.status, 304);
      }
      const stale = await get(small.pid, { "if-none-match": '"sha256-0"' });
      assert.equal(stale.status, 200);
      assert.deepEqual(Buffer.from(await stale.arrayBuffer()), small.bytes);
    });

    it("If-Range: the range when the tag or date matches, the whole object when not", async () => {
      const { headers } = await get(large.pid);
      const etag = headers.get("etag") ?? "";
      const matching = await get(large.pid, { range: "bytes=0-9", "if-range": etag });
      assert.equal(matching.status, 206);
      assert.deepEqual(Buffer.from(await matching.arrayBuffer()), large.bytes.subarray(0, 10));
      const byDate = await get(large.pid, {
        range: "bytes=0-9",
        "if-range": headers.get("last-modified") ?? "",
      });
      assert.equal(byDate.status, 206);
      await byDate.arrayBuffer();
      const changed = await get(large.pid, { range: "bytes=0-9", "if-range": '"sha256-0"' });
      assert.equal(changed.status, 200);
      assert.equal((await changed.arrayBuffer()).byteLength, large.bytes.length);
    });

    it("each get that delivers bytes logs one read, a range included; 304, 416 and describe log none", async () => {
      const pid = uniquePid("range-events");
      assert.equal((await create(admin, pid, randomBytes(200 * 1024))).status, 200);
      const first = await get(pid);
      const etag = first.headers.get("etag") ?? "";
      await first.arrayBuffer();
      for (const headers of [{ range: "bytes=0-1023" }, { range: "bytes=-10" }]) {
        await (await get(pid, headers)).arrayBuffer();
      }
      const nothing: Record<string, string>[] = [{ "if-none-match": etag }, { range: "bytes=999999999-" }];
      for (const headers of nothing) {
        await (await get(pid, headers)).arrayBuffer();
      }
      await call(anon, "HEAD", `/object/${enc(pid)}`);
      await assertEvents(pid, 3);
    });

    it("getReplica serves ranges and logs one replicate event per call that delivers bytes", async () => {
      const pid = uniquePid("range-replica");
      const bytes = randomBytes(100 * 1024);
      assert.equal((await create(admin, pid, bytes)).status, 200);
      const partial = await get(pid, { range: "bytes=100-199" }, "/replica/");
      assert.equal(partial.status, 206);
      assert.deepEqual(Buffer.from(await partial.arrayBuffer()), bytes.subarray(100, 200));
      const etag = partial.headers.get("etag") ?? "";
      const unchanged = await get(pid, { "if-none-match": etag }, "/replica/");
      assert.equal(unchanged.status, 304);
      await assertEvents(pid, 1, "replicate");
      await assertEvents(pid, 0, "read");
    });

    it("curl: -r ranges, resumed downloads (-C) and If-None-Match", async () => {
      const target = url(anon, `/object/${enc(large.pid)}`);
      const curl = async (...args: string[]) => {
        const { stdout } = await run("curl", ["-sS", "-o", "/dev/null", "-D", "-", ...args, target], {
          encoding: "buffer",
        });
        return stdout.toString("latin1");
      };
      const size = large.bytes.length;
      const ranged = await curl("-r", "1000-1999");
      assert.match(ranged, /^HTTP\/1\.1 206/);
      assert.match(ranged, new RegExp(`content-range: bytes 1000-1999/${size}`, "i"));
      const { stdout } = await run("curl", ["-sS", "-r", "-16", target], { encoding: "buffer" });
      assert.deepEqual(stdout, large.bytes.subarray(size - 16));
      const etag = /etag: ("[^"]+")/i.exec(ranged)?.[1] ?? "";
      assert.match(await curl("-H", `If-None-Match: ${etag}`), /^HTTP\/1\.1 304/);
      assert.match(await curl("-r", `${size}-`), /^HTTP\/1\.1 416/);
      // curl -z sends If-Modified-Since.
      assert.match(await curl("-z", "Fri, 01 Jan 2100 00:00:00 GMT"), /^HTTP\/1\.1 304/);
      assert.match(await curl("-z", "Thu, 01 Jan 1970 00:00:00 GMT"), /^HTTP\/1\.1 200/);
    });
  });
}

for (const dialect of testDialects()) {
  describe(`CNRead.get and describe: ranges and entity tags (${dialect})`, () => {
    let cn: TestNode;
    let admin: Caller;
    before(async () => {
      cn = await startTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
      admin = { baseUrl: cn.baseUrl, token: await cn.token(ADMIN) };
    });
    after(() => cn.close());

    it("bytes the CN holds: 206, 304 and the ETag; system metadata alone: no ETag, no Accept-Ranges", async () => {
      const pid = uniquePid("cn-range");
      const bytes = randomBytes(100 * 1024);
      const created = await call(admin, "POST", "/object", {
        body: form({ pid, object: bytes, sysmeta: { xml: sysmetaXml(pid, bytes, { readers: ["public"] }) } }),
      });
      assert.equal(created.status, 200, await created.text());
      const partial = await call(admin, "GET", `/object/${enc(pid)}`, { headers: { range: "bytes=-5" } });
      assert.equal(partial.status, 206);
      assert.deepEqual(Buffer.from(await partial.arrayBuffer()), bytes.subarray(bytes.length - 5));
      const etag = partial.headers.get("etag") ?? "";
      assert.match(etag, /^"sha256-/);
      const fresh = await call(admin, "GET", `/object/${enc(pid)}`, { headers: { "if-none-match": etag } });
      assert.equal(fresh.status, 304);
      const head = await call(admin, "HEAD", `/object/${enc(pid)}`, { headers: { "if-none-match": etag } });
      assert.equal(head.status, 304);

      const remote = uniquePid("cn-remote");
      const registered = await call(admin, "POST", "/meta", {
        body: form({ pid: remote, sysmeta: { xml: sysmetaXml(remote, Buffer.from("remote"), {}) } }),
      });
      assert.equal(registered.status, 200, await registered.text());
      const described = await call(admin, "HEAD", `/object/${enc(remote)}`);
      assert.equal(described.status, 200);
      assert.equal(described.headers.get("etag"), null);
      assert.equal(described.headers.get("accept-ranges"), null);
      assert.ok(described.headers.get("last-modified"));
    });
  });
}
