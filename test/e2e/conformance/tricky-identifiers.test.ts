/**
 * "every identifier in tricky_identifiers_unicode.utf8.txt round-trips through create, get, meta, describe,
 * listObjects": each is sent percent-encoded as one path segment, exactly as the DataONE clients encode it.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const LIST = fileURLToPath(
  new URL("../../fixtures/third-party/tricky_identifiers_unicode.utf8.txt", import.meta.url),
);

/** The distinct identifiers of the list (some appear under several labels). */
function trickyIdentifiers(): { label: string; id: string }[] {
  const seen = new Set<string>();
  return readFileSync(LIST, "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line, i) => {
      const [label, id] = line.split("\t");
      return { label: `${i + 1}.${label}`, id: id ?? "" };
    })
    .filter(({ id }) => !seen.has(id) && seen.add(id));
}

for (const dialect of testDialects()) {
  describe(`tricky identifiers (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    });

    for (const { label, id } of trickyIdentifiers()) {
      it(`${label}: create, get, meta, describe, listObjects`, async () => {
        const bytes = Buffer.from(`tricky ${label}\n`);
        const created = await create(admin, id, bytes);
        assert.equal(created.status, 200, await created.text());
        const got = await call(admin, "GET", `/object/${enc(id)}`);
        assert.deepEqual(Buffer.from(await got.arrayBuffer()), bytes);
        const meta = await (await call(admin, "GET", `/meta/${enc(id)}`)).text();
        const escaped = id.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
        assert.ok(meta.includes(`<identifier>${escaped}</identifier>`), meta);
        const head = await call(admin, "HEAD", `/object/${enc(id)}`);
        assert.equal(head.status, 200);
        assert.equal(head.headers.get("content-length"), String(bytes.length));
        const list = await (await call(admin, "GET", `/object?identifier=${encodeURIComponent(id)}`)).text();
        assert.match(list, /count="1"/);
        assert.ok(list.includes(`<identifier>${escaped}</identifier>`), list);
      });
    }
  });
}
