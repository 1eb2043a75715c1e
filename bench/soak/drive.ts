/**
 * The soak's clients, all at once until `stop` aborts: the honest loops, and each hostile client at its own
 * fixed rate (so that their load stays bounded however fast the node answers).
 */
import type { KeyObject } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { HonestClient } from "./honest.ts";
import {
  badIdentifiers,
  type HostileContext,
  hostileOrigins,
  missingBoundary,
  tokenWithoutExpiry,
} from "./hostile.ts";
import { sidRace } from "./race.ts";
import { oversized, StalledUploads } from "./raw.ts";
import type { Tally } from "./tally.ts";

export interface Drive {
  baseUrl: string;
  token: string;
  subject: string;
  /** The node's token-signing key, for the token without `exp`. */
  signingKey: KeyObject;
  clients: number;
  stallSeconds: number;
  tally: Tally;
  stop: AbortSignal;
}

/** Bytes of 2-4 MiB objects the honest clients write in one soak, at most. */
const LARGE_BUDGET = 1 << 30;
const OVERSIZED_MIB = 32;

export async function drive(d: Drive): Promise<void> {
  const { baseUrl, token, subject, tally, stop } = d;
  const stopped = () => stop.aborted;
  const stalls = new StalledUploads(baseUrl, token, subject, d.stallSeconds, tally);
  const hostile: HostileContext = { baseUrl, token, subject, tally };
  let oversizedTurn = 0;
  let stallTurn = 0;
  const every = async (seconds: number, task: () => Promise<void>) => {
    while (!stopped()) {
      await task().catch((error: Error) =>
        tally.problem("hostile", "soak", "a hostile client failed", error.stack ?? String(error)),
      );
      await sleep(seconds * 1000, undefined, { signal: stop }).catch(() => undefined);
    }
  };
  const largeBudget = { bytes: LARGE_BUDGET };
  const honest = Array.from({ length: d.clients }, (_, i) =>
    new HonestClient({ baseUrl, token, subject, tally, largeBudget, stopped }, `c${i}`).run(),
  );
  try {
    await Promise.all([
      ...honest,
      every(15, () => sidRace(baseUrl, token, subject, tally)),
      every(20, () => oversized(baseUrl, oversizedTurn++ % 2 ? "meta" : "generate", OVERSIZED_MIB, tally)),
      every(10, async () => stalls.start(stallTurn++ % 2 === 1)),
      every(5, () => hostileOrigins(hostile)),
      every(10, () => badIdentifiers(hostile)),
      every(10, () => missingBoundary(hostile)),
      every(10, () => tokenWithoutExpiry(hostile, d.signingKey)),
    ]);
  } finally {
    stalls.finish();
  }
}
