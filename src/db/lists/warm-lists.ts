/**
 * After a start, the unfiltered event log and object list are walked once in the background (KeysetPager.warm),
 * so that a harvester's first jump to start=N continues from a remembered key instead of scanning N index
 * entries while it waits (50 M entries: 39 s to the middle). So is the list an anonymous caller sees (objects
 * readable by public), the one filtered list every caller without a session asks for. Lists under WARM_FROM
 * rows are left cold: a jump there reads at most that many keys. Other lists of WALK_FROM rows or more (an event
 * type, a reader's objects, the parent of a date window) are walked the same way after their first page.
 */

import type { Kysely } from "kysely";
import { PUBLIC } from "../../auth/subjects.ts";
import { countRows } from "../engine/row-counts.ts";
import type { BatchedEventLog } from "../events/event-log.ts";
import type { ObjectKey } from "../objects/repository.ts";
import type { Tables } from "../schema.ts";
import type { StoredObject } from "../types.ts";
import { objectListSource } from "./object-list.ts";
import type { KeysetPager } from "./pager.ts";

const WARM_FROM = 100_000;
/** A filtered list this long is walked in the background after its first page (KeysetPager's walkFrom). */
export const WALK_FROM = WARM_FROM;

export async function warmLists(
  db: Kysely<Tables>,
  objects: KeysetPager<ObjectKey, StoredObject>,
  events: BatchedEventLog,
  signal: AbortSignal,
  minimumRows = WARM_FROM,
): Promise<void> {
  if ((await countRows(db, "events")) >= minimumRows) await events.warm(signal);
  if ((await countRows(db, "objects")) < minimumRows) return;
  await objects.warm(objectListSource(db, {}), signal);
  await objects.warm(objectListSource(db, { readableBy: [PUBLIC] }), signal);
}
