/** When a node's disk counts as low: under 1 GiB free, or under 5 % of its filesystem. */
import assert from "node:assert/strict";
import { it } from "node:test";
import { lowDiskWarning } from "../../../src/metrics/disk-warning.ts";
import { isLow } from "../../../src/ops/disk-space.ts";

const GiB = 1024 ** 3;
const space = (freeBytes: number, totalBytes: number) => ({
  folder: "/srv/d1node/store",
  freeBytes,
  totalBytes,
});

it("low under 1 GiB free, or under 5 % free; the warning names the folder, free and total", () => {
  assert.equal(isLow(space(2 * GiB, 10 * GiB)), false);
  assert.equal(isLow(space(GiB - 1, 4 * GiB)), true);
  assert.equal(isLow(space(40 * GiB, 1000 * GiB)), true);
  assert.equal(isLow(space(60 * GiB, 1000 * GiB)), false);
  assert.equal(lowDiskWarning(space(2 * GiB, 10 * GiB)), undefined);
  assert.equal(lowDiskWarning(undefined), undefined);
  assert.equal(
    lowDiskWarning(space(512 * 1024 ** 2, 8 * GiB)),
    "little free disk space for /srv/d1node/store: 512 MiB of 8.0 GiB free (6.3 %); uploads fail with InsufficientResources when it is full",
  );
});
