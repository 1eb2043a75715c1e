/** WHERE conditions of the object list and the event log, from their filters. */

import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { mayRead } from "../../auth/readers.ts";
import type { EventsTable, Tables } from "../schema.ts";
import type { LogFilter, ObjectListFilter, StoredObject } from "../types.ts";
import { prefixUpperBound } from "./order.ts";

type Condition = Expression<SqlBool>;

export function objectConditions(eb: ExpressionBuilder<Tables, "objects">, f: ObjectListFilter): Condition[] {
  const all: Condition[] = [];
  if (f.fromDate) all.push(eb("date_modified", ">=", f.fromDate.getTime()));
  if (f.toDate) all.push(eb("date_modified", "<", f.toDate.getTime()));
  if (f.formatId !== undefined) all.push(eb("format_id", "=", f.formatId));
  if (f.identifier !== undefined) {
    all.push(eb.or([eb("pid", "=", f.identifier), eb("sid", "=", f.identifier)]));
  }
  if (f.replicaStatus === false) all.push(eb("is_replica", "=", 0));
  if (f.nodeId !== undefined) all.push(eb("authoritative_mn", "=", f.nodeId));
  if (f.readableBy !== undefined) all.push(readableBy(eb, f.readableBy));
  return all;
}

/** One of the subjects may read the object: its access rows name the rights holder and every granted subject. */
export function readableBy(eb: ExpressionBuilder<Tables, "objects">, subjects: readonly string[]): Condition {
  if (subjects.length === 0) return sql<SqlBool>`1 = 0`;
  return eb.exists(
    eb
      .selectFrom("access_rules")
      .select("access_rules.pid")
      .whereRef("access_rules.pid", "=", "objects.pid")
      .where("access_rules.subject", "in", subjects),
  );
}

export function eventConditions(eb: ExpressionBuilder<Tables, "events">, f: LogFilter): Condition[] {
  const all: Condition[] = [];
  if (f.fromDate) all.push(eb("date_logged", ">=", f.fromDate.getTime()));
  if (f.toDate) all.push(eb("date_logged", "<", f.toDate.getTime()));
  if (f.event !== undefined) all.push(eb("event", "=", f.event));
  // A prefix as a range of identifiers: exact, indexable, and no LIKE wildcards to escape.
  if (f.idFilter !== undefined && f.idFilter !== "") {
    all.push(eb("events.pid", ">=", f.idFilter));
    const bound = prefixUpperBound(f.idFilter);
    if (bound !== undefined) all.push(eb("events.pid", "<", bound));
  }
  if (f.readableBy !== undefined) {
    const subjects = f.readableBy;
    // About objects the node holds now and that one of the subjects may read.
    all.push(
      eb.exists(
        eb
          .selectFrom("objects")
          .select("objects.pid")
          .whereRef("objects.pid", "=", "events.pid")
          .where((o) => readableBy(o, subjects)),
      ),
    );
  }
  return all;
}

/** Whether the filter lists every object (objectConditions gives none): its total is the table's row count. */
export function listsAllObjects(f: ObjectListFilter): boolean {
  const { replicaStatus, ...others } = f;
  return replicaStatus !== false && Object.values(others).every((value) => value === undefined);
}

/** Whether the filter lists every entry (eventConditions gives none). */
export function listsAllEvents(f: LogFilter): boolean {
  const { idFilter, ...others } = f;
  return (
    (idFilter === undefined || idFilter === "") && Object.values(others).every((value) => value === undefined)
  );
}

/** Whether an object is in the filter's list (as objectConditions decide it in SQL). */
export function objectIncludes(f: ObjectListFilter): (object: StoredObject) => boolean {
  const readers = f.readableBy === undefined ? undefined : new Set(f.readableBy);
  return ({ sysmeta: s, isReplica }) => {
    const modified = s.dateSysMetadataModified?.getTime() ?? Number.NaN;
    if (f.fromDate && !(modified >= f.fromDate.getTime())) return false;
    if (f.toDate && !(modified < f.toDate.getTime())) return false;
    if (f.formatId !== undefined && s.formatId !== f.formatId) return false;
    if (f.identifier !== undefined && s.identifier !== f.identifier && s.seriesId !== f.identifier)
      return false;
    if (f.replicaStatus === false && isReplica) return false;
    if (f.nodeId !== undefined && s.authoritativeMemberNode !== f.nodeId) return false;
    if (readers !== undefined && !mayRead(readers, s)) return false;
    return true;
  };
}

/** Whether a new entry is in the filter's list; undefined when that depends on the objects table. */
export function eventIncludes(f: LogFilter): (row: Omit<EventsTable, "id">) => boolean | undefined {
  return (row) => {
    if (f.fromDate && row.date_logged < f.fromDate.getTime()) return false;
    if (f.toDate && row.date_logged >= f.toDate.getTime()) return false;
    if (f.event !== undefined && row.event !== f.event) return false;
    if (f.idFilter !== undefined && !row.pid.startsWith(f.idFilter)) return false;
    return f.readableBy === undefined ? true : undefined;
  };
}
