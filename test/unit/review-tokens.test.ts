/** Reviewer link tokens: random, of one shape, checked against the stored hash only; their secret kept out of the access log. */
import assert from "node:assert/strict";
import { it } from "node:test";
import {
  newReviewToken,
  parseReviewToken,
  secretHashOf,
  secretMatches,
} from "../../src/auth/review-tokens.ts";
import { withoutReviewSecret } from "../../src/http/plugins/access-log.ts";

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
