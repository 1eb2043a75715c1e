/** Reviewer link tokens: random, of one shape, checked against the stored hash only; their secret kept out of the access log. */
import assert from "node:assert/strict";
import { it } from "node:test";
import {
  newReviewToken,
  parseReviewToken,
  secretHashOf,
  secretMatches,
  withoutReviewSecret,
} from "../../src/auth/review-tokens.ts";

it("makes a fresh id and secret each time, and checks the secret against its hash alone", () => {
  const a = newReviewToken();
  const b = newReviewToken();
  assert.notEqual(a.id, b.id);
  assert.notEqual(a.secret, b.secret);
  assert.deepEqual(parseReviewToken(a.token), { id: a.id, secret: a.secret });
  const stored = secretHashOf(a.secret);
  assert.ok(!stored.includes(a.secret));
  assert.ok(secretMatches(a.secret, stored));
  assert.ok(!secretMatches(b.secret, stored));
  assert.ok(!secretMatches(a.secret, ""));
});

it("looks nothing up for a token of another shape", () => {
  const { id, secret } = newReviewToken();
  for (const token of [
    "",
    id,
    `${id}.`,
    `${id}.${secret}x`,
    `${id}.${secret.slice(1)}`,
    `${id}/${secret}`,
    `../${secret}`,
  ])
    assert.equal(parseReviewToken(token), undefined, token);
});

it("logs the link's id but not its secret", () => {
  const { id, secret, token } = newReviewToken();
  const logged = withoutReviewSecret(`/mn/review/${token}/object/x?y=1`);
  assert.equal(logged, `/mn/review/${id}.*/object/x?y=1`);
  assert.ok(!logged.includes(secret));
  assert.equal(withoutReviewSecret("/mn/v2/object/review"), "/mn/v2/object/review");
});

it("keeps the secret out of any text: encoded, mangled, doubled slashes, outside a review path", () => {
  const { id, secret, token } = newReviewToken();
  const texts = [
    `/mn/review/${id}%2E${secret}`,
    `/mn/review/${id}%2e${secret}/package`,
    `/mn/review//${token}`,
    `/mn/review/${token}x.y/object/z`,
    `/mn/review/${token}.${token}`,
    `{"msg":"Route DELETE:/mn/review/${token}?a=b not found"}`,
    `GET /mn/v2/object/${token} is not an operation`,
    `/elsewhere?t=${token}&u=${token}`,
    `/mn/review%2F${token}`,
    `/mn/x${token}`,
  ];
  for (const text of texts) {
    const cut = withoutReviewSecret(text);
    assert.ok(!cut.includes(secret), cut);
    assert.ok(!cut.includes(secret.slice(0, 20)), cut);
    assert.ok(cut.includes(id), cut);
  }
  assert.equal(withoutReviewSecret(`/mn/review/${id}`), `/mn/review/${id}`);
  assert.equal(withoutReviewSecret("/mn/v2/object/a.b"), "/mn/v2/object/a.b");
});
