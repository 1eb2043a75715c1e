/** The engine's hash table of numbers (src/search/memory/hash-slots.ts): found again, through growth and collisions. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HashSlots, hashOf } from "../../../src/search/memory/hash-slots.ts";

describe("HashSlots", () => {
  for (const [label, hash] of [
    ["by FNV-1a", hashOf],
    ["all colliding", () => 7],
    ["few hashes", (key: string) => key.length],
  ] as [string, (key: string) => number][]) {
    it(`numbers keys in order and finds each again (${label})`, () => {
      const slots = new HashSlots();
      const keys: string[] = [];
      const is = (n: number, key: string) => keys[n] === key;
      const count = label === "all colliding" ? 1500 : 5000;
      for (let i = 0; i < count; i++) {
        const key = `key ${i * 7919}`;
        const missing = slots.find(hash(key), key, is);
        assert.ok(missing < 0, `${key} is new`);
        keys.push(key);
        assert.equal(slots.add(hash(key), missing), i);
      }
      for (const [n, key] of keys.entries()) assert.equal(slots.find(hash(key), key, is), n);
      assert.ok(slots.find(hash("absent"), "absent", is) < 0);
      assert.ok(slots.bytes >= count * 4 * 3, "at most half full, each hash kept");
    });
  }
});
