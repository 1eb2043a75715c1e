/** Bearer tokens: minted with the node's key, verified against trusted keys, expiry and forgery refused. */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import { mintToken, verifyToken } from "../../src/auth/tokens.ts";
import { InvalidToken } from "../../src/errors/exceptions.ts";

// Two key pairs for the whole file: RSA key generation is most of these tests' time.
const ours = generateKeyPairSync("rsa", { modulusLength: 2048 });
const foreign = generateKeyPairSync("rsa", { modulusLength: 2048 });

describe("tokens", () => {
  it("round-trips the subject with the signing key's public half", async () => {
    const { privateKey, publicKey } = ours;
    const token = await mintToken(privateKey, { subject: "CN=Jane,DC=org" });
    assert.equal(await verifyToken(token, [foreign.publicKey, publicKey]), "CN=Jane,DC=org");
  });

  it("refuses expired, foreign-key and garbage tokens with InvalidToken", async () => {
    const { privateKey, publicKey } = ours;
    const expired = await mintToken(privateKey, { subject: "CN=a", ttlSeconds: -5 });
    await assert.rejects(
      verifyToken(expired, [publicKey]),
      (e) => e instanceof InvalidToken && /expired/.test(e.description),
    );
    const signedElsewhere = await mintToken(foreign.privateKey, { subject: "CN=a" });
    await assert.rejects(verifyToken(signedElsewhere, [publicKey]), InvalidToken);
    await assert.rejects(verifyToken("abc.def.ghi", [publicKey]), InvalidToken);
  });
});
