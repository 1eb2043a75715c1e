/**
 * `./bin/d1node.js object show|set-access|archive|delete` against a listening Member Node and Coordinating Node,
 * both databases: every change goes through the node's API as the caller the token file names, so the node
 * refuses a subject it would refuse any client; a missing identifier is NotFound's description and exit 2.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type Caller, call, create, enc, okXml } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { type CliRun, runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";

/** One line on standard error, nothing on standard output. */
function oneLine(run: CliRun, code: number, pattern: RegExp): void {
  assert.equal(run.code, code, run.stderr);
  assert.equal(run.stdout, "");
  assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  assert.match(run.stderr, pattern);
}

for (const dialect of testDialects()) {
  for (const role of ["mn", "cn"] as const) {
    describe(`d1node object on a ${role.toUpperCase()} (${dialect})`, () => {
      let node: TestNode;
      let admin: Caller;
      let folder: string;
      const tokenFile: Record<string, string> = {};
      const object = (verb: string, pid: string, who: string | undefined, ...rest: string[]) =>
        runCli([
          "object",
          verb,
          pid,
          "--node",
          node.baseUrl,
          ...(who ? ["--token-file", tokenFile[who] as string] : []),
          ...rest,
        ]);
      const newObject = async () => {
        const pid = uniquePid("object-command");
        const made = await create(admin, pid, Buffer.from("a,b\n1,2\n"), {
          rightsHolder: ALICE,
          readers: [],
        });
        assert.equal(made.status, 200, await made.text());
        return pid;
      };
      const meta = async (pid: string) => okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
      const anonymousRead = async (pid: string) =>
        (await call({ baseUrl: node.baseUrl }, "GET", `/meta/${enc(pid)}`)).status;

      before(async () => {
        node = await startTestNode(dialect, role === "cn" ? { role: "cn", nodeId: "urn:node:TESTCN" } : {});
        admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
        folder = await mkdtemp(path.join(tmpdir(), "d1node-object-"));
        for (const [name, subject] of Object.entries({ admin: ADMIN, alice: ALICE, bob: BOB })) {
          tokenFile[name] = path.join(folder, `${name}.token`);
          await writeFile(tokenFile[name] as string, await node.token(subject));
        }
      });
      after(async () => {
        await node?.close();
        await rm(folder, { recursive: true, force: true });
      });

      it("show, set-access, archive and delete through the node's API; other subjects refused", async () => {
        const pid = await newObject();
        const shown = await object("show", pid, "alice");
        assert.equal(shown.code, 0, shown.stderr);
        assert.match(shown.stdout, new RegExp(`^identifier +${pid}$`, "m"));
        assert.match(shown.stdout, /^size +8 bytes$/m);
        assert.match(shown.stdout, /^checksum +SHA-1 [0-9a-f]{40}$/m);
        assert.match(shown.stdout, new RegExp(`^rightsHolder +${ALICE}$`, "m"));
        assert.match(shown.stdout, /^access +\(none: the rights holder alone\)$/m);
        assert.match(shown.stdout, /^archived +no$/m);
        assert.match(shown.stdout, /^dateUploaded +\d{4}-/m);

        // Bob may read the object, not change who else may: the node refuses the change itself.
        const readable = await object("set-access", pid, "alice", "--allow", `${BOB}=read`);
        assert.equal(readable.code, 0, readable.stderr);
        assert.match(readable.stdout, new RegExp(`^access +${BOB}: read$`, "m"));
        const refused = await object("set-access", pid, "bob", "--public");
        oneLine(refused, 1, /^d1node object: the node refused the access policy of .*: NotAuthorized: /);
        assert.equal(await anonymousRead(pid), 401);

        const opened = await object("set-access", pid, "alice", "--public", "--allow", `${BOB}=write`);
        assert.equal(opened.code, 0, opened.stderr);
        assert.match(opened.stdout, /^access +public: read$/m);
        assert.match(opened.stdout, new RegExp(`^access +${BOB}: read, write$`, "m"));
        assert.equal(await anonymousRead(pid), 200);
        const closed = await object("set-access", pid, "alice", "--deny-public");
        assert.equal(closed.code, 0, closed.stderr);
        assert.doesNotMatch(closed.stdout, /public/);
        assert.equal(await anonymousRead(pid), 401);

        // MNStorage.archive: changePermission on the object; CNCore.archive: trusted subjects (administrators).
        oneLine(await object("archive", pid, "bob", "--yes"), 1, /NotAuthorized/);
        const archived = await object("archive", pid, role === "mn" ? "alice" : "admin", "--yes");
        assert.equal(archived.code, 0, archived.stderr);
        assert.equal(archived.stdout, `archived ${pid}\n`);
        assert.match(await meta(pid), /<archived>true<\/archived>/);

        // MNStorage.delete and CNCore.delete: the node's administrators alone.
        oneLine(await object("delete", pid, "alice", "--yes"), 1, /NotAuthorized/);
        const deleted = await object("delete", pid, "admin", "--yes");
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.equal(deleted.stdout, `deleted ${pid}\n`);
        oneLine(await object("show", pid, "admin"), 2, new RegExp(`^d1node object: NotFound: .*${pid}`));
      });

      if (dialect !== "sqlite" || role !== "mn") return;

      it("show --xml: the node's document; an unreadable object is NotAuthorized, exit 1", async () => {
        const pid = await newObject();
        const xml = await object("show", pid, "alice", "--xml");
        assert.equal(xml.code, 0, xml.stderr);
        await validateXml(xml.stdout);
        oneLine(
          await object("show", pid, undefined),
          1,
          /^d1node object: the node refused .*: NotAuthorized: /,
        );
      });

      it("operator mistakes: one line, exit 2, nothing sent", async () => {
        const pid = await newObject();
        oneLine(await object("archive", pid, "alice"), 2, /cannot be undone: add --yes/);
        oneLine(await object("delete", pid, "admin"), 2, /cannot be undone: add --yes/);
        oneLine(
          await object("set-access", pid, "alice", "--allow", `${BOB}=own`),
          2,
          /--allow takes SUBJECT=PERMISSION/,
        );
        oneLine(await object("set-access", pid, "alice"), 2, /say what to change/);
        const unchanged = await object("set-access", pid, "alice", "--deny-public");
        assert.equal(unchanged.code, 0, unchanged.stderr);
        assert.match(unchanged.stderr, /already says so: unchanged/);
        oneLine(
          await runCli(["object", "archive", pid, "--node", node.baseUrl, "--yes"]),
          2,
          /give credentials/,
        );
        oneLine(
          await runCli(["object", "show", pid, "--node", `${node.baseUrl}/v2`]),
          2,
          /does not answer as a DataONE node/,
        );
        assert.match(await meta(pid), /<archived>|<identifier>/);
        assert.doesNotMatch(await meta(pid), /<archived>true/);
      });
    });
  }
}
