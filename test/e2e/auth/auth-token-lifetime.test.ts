/**
 * Bearer tokens must expire: a token signed by the node's own key but without `exp` would be valid forever, so it
 * is refused (InvalidToken), as is an expired one and one valid for longer than maxTokenLifetime. Tokens the node
 * issues itself (`d1node token`, its node-to-node token) stay within the cap and are accepted.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { SignJWT } from "jose";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { nodeToken } from "../../../src/auth/node-token.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const exec = promisify(execFile);
const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));

const HOUR = 3600;

describe("bearer token lifetime", () => {
  let node: TestNode;
  let sign: (claims: { exp?: number; iat?: number }) => Promise<string>;
  before(async () => {
    node = await startTestNode("sqlite", { maxTokenLifetime: 24 * HOUR });
    const { privateKey } = loadOrCreateSigningKey(node.dataDir);
    sign = ({ exp, iat }) => {
      const jwt = new SignJWT({ userId: ADMIN }).setProtectedHeader({ alg: "RS256" }).setSubject(ADMIN);
      if (iat !== undefined) jwt.setIssuedAt(iat);
      if (exp !== undefined) jwt.setExpirationTime(exp);
      return jwt.sign(privateKey);
    };
  });
  after(() => node.close());

  const now = () => Math.floor(Date.now() / 1000);

  /** The generateIdentifier answer for a token: an identifier (200) or a DataONE exception. */
  const generate = async (token: string) => {
    const body = new FormData();
    body.set("scheme", "UUID");
    const response = await fetch(`${node.baseUrl}/v2/generate`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body,
    });
    const text = await response.text();
    return { status: response.status, name: /<error name="(\w+)"/.exec(text)?.[1], text };
  };

  const refused = async (token: string, why: RegExp) => {
    const answer = await generate(token);
    assert.equal(answer.status, 401, answer.text);
    assert.equal(answer.name, "InvalidToken");
    assert.match(answer.text, /detailCode="2190"/);
    assert.match(answer.text, why);
  };

  it("refuses a token without exp, with or without iat", async () => {
    await refused(await sign({ iat: now() }), /no expiry/);
    await refused(await sign({}), /no expiry/);
  });

  it("refuses an expired token", async () => {
    await refused(await sign({ iat: now() - 2 * HOUR, exp: now() - HOUR }), /expired/);
  });

  it("refuses a token valid for longer than maxTokenLifetime", async () => {
    await refused(await sign({ iat: now(), exp: now() + 30 * 24 * HOUR }), /at most 86400 s/);
    await refused(await sign({ exp: now() + 48 * HOUR }), /at most 86400 s/);
  });

  it("accepts tokens within the cap: the default of `d1node token` and the node's own token", async () => {
    assert.equal((await generate(await sign({ iat: now(), exp: now() + 24 * HOUR }))).status, 200);
    assert.equal((await generate(await node.token(ADMIN, 18 * HOUR))).status, 200);
    const own = await nodeToken({ dataDir: node.dataDir, nodeSubject: ADMIN });
    assert.equal((await generate(own)).status, 200);
  });

  it("d1node token prints a token the node accepts, and refuses a --ttl over maxTokenLifetime", async () => {
    const printed = await exec(process.execPath, [
      BIN,
      "token",
      "--subject",
      ADMIN,
      "--data-dir",
      node.dataDir,
    ]);
    assert.equal((await generate(printed.stdout.trim())).status, 200);
    await assert.rejects(
      exec(process.execPath, [
        BIN,
        "token",
        "--subject",
        ADMIN,
        "--data-dir",
        node.dataDir,
        "--ttl",
        "172800",
      ]),
      (e: { code?: number; stderr?: string }) =>
        e.code === 1 &&
        /--ttl 172800 is longer than the node accepts \(maxTokenLifetime 86400 s\)/.test(e.stderr ?? ""),
    );
  });
});
