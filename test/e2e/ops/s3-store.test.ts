/**
 * A node whose bytes live in S3 (a real RADOS Gateway), on SQLite and PostgreSQL: creates, reads, updates and
 * deletes keep their guarantees; the bucket holds exactly the committed content, never a temporary or a
 * refused write's bytes.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type Caller, call, create, enc, errorOf, update } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { countUnder, createTestBucket, s3NodeSettings, type TestBucket } from "../../helpers/peers/s3.ts";

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

for (const dialect of testDialects()) {
  describe(`a node on an S3 store (${dialect})`, () => {
    let node: TestNode;
    let bucket: TestBucket;
    let admin: Caller;
    before(async () => {
      bucket = await createTestBucket();
      node = await startTestNode(dialect, s3NodeSettings(bucket));
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    });
    after(async () => {
      await node.close();
      await bucket.drop();
    });

    const committed = () => countUnder(bucket.client, bucket.name, "node/objects/");
    const temps = () => countUnder(bucket.client, bucket.name, "node/tmp/");
    const held = async (data: Buffer) => {
      const key = sha256(data);
      return (
        (await countUnder(
          bucket.client,
          bucket.name,
          `node/objects/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`,
        )) === 1
      );
    };

    it("creates and reads small and multipart-sized objects; the bytes sit under their SHA-256", async () => {
      for (const size of [0, 10, 70 * 1024, 12 * 1024 * 1024 + 5]) {
        const data = randomBytes(size);
        const pid = uniquePid("s3");
        assert.equal((await create(admin, pid, data)).status, 200, `create of ${size} bytes`);
        const got = await call(admin, "GET", `/object/${enc(pid)}`);
        assert.equal(got.status, 200);
        assert.ok(Buffer.from(await got.arrayBuffer()).equals(data), `get of ${size} bytes`);
        assert.equal(await held(data), true);
      }
      assert.equal(await temps(), 0);
    });

    it("a refused create stores nothing; an update keeps both versions' bytes; a delete removes unshared bytes", async () => {
      const before = await committed();
      const refused = randomBytes(5000);
      const pid = uniquePid("s3");
      const bad = await errorOf(await create(admin, pid, refused, { checksum: "0".repeat(40) }));
      assert.equal(bad.name, "InvalidSystemMetadata");
      assert.equal(await committed(), before);

      const first = randomBytes(3000);
      const second = randomBytes(4000);
      assert.equal((await create(admin, pid, first)).status, 200);
      const next = uniquePid("s3");
      assert.equal((await update(admin, pid, next, second)).status, 200);
      assert.equal(await held(first), true);
      assert.equal(await held(second), true);
      const shared = uniquePid("s3");
      assert.equal((await create(admin, shared, second)).status, 200);

      assert.equal((await call(admin, "DELETE", `/object/${enc(next)}`)).status, 200);
      assert.equal(await held(second), true, "bytes another object shares stay");
      assert.equal((await call(admin, "DELETE", `/object/${enc(shared)}`)).status, 200);
      assert.equal(await held(second), false);
      assert.equal((await call(admin, "DELETE", `/object/${enc(pid)}`)).status, 200);
      assert.equal(await held(first), false);
      assert.equal(await temps(), 0);
    });

    it("concurrent creates of the same content keep one copy, and every object reads it", async () => {
      const data = randomBytes(200 * 1024);
      const pids = Array.from({ length: 6 }, () => uniquePid("s3same"));
      const answers = await Promise.all(pids.map((pid) => create(admin, pid, data)));
      for (const answer of answers) assert.equal(answer.status, 200);
      for (const pid of pids) {
        const got = await call(admin, "GET", `/object/${enc(pid)}`);
        assert.ok(Buffer.from(await got.arrayBuffer()).equals(data));
      }
      assert.equal(await held(data), true);
      assert.equal(await temps(), 0);
    });
  });
}
