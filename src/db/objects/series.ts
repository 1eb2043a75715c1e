/**
 * The identifiers table inside an object write: a new object claims its PID, a SID joins or starts its series.
 * "A seriesId can not appear in any other revision chain" (XSD v2.0 seriesId), and PIDs and SIDs share one
 * namespace. The primary key of `identifiers` decides every race: of writers introducing the same identifier,
 * one inserts the row, the others find it (PostgreSQL makes them wait for the first to commit or roll back).
 */
import type { Kysely } from "kysely";
import { FixedSql } from "../engine/statement-texts.ts";
import { SeriesConflictError } from "../errors.ts";
import { compareCodePoints } from "../lists/order.ts";
import type { Tables } from "../schema.ts";

const CLAIM_PID = new FixedSql("insert into identifiers (id, kind, head) values (?, 'pid', null)");

/** A new object's PID; a unique violation when it is any PID or SID in use. */
export async function claimPid(tx: Kysely<Tables>, pid: string): Promise<void> {
  await CLAIM_PID.run(tx, [pid]);
}

/** PID rows for several new objects (chunks under both dialects' bound-parameter limits). */
export async function claimPids(tx: Kysely<Tables>, pids: readonly string[]): Promise<void> {
  for (let i = 0; i < pids.length; i += 500) {
    const rows = pids.slice(i, i + 500).map((id) => ({ id, kind: "pid" as const, head: null }));
    await tx.insertInto("identifiers").values(rows).execute();
  }
}

/** What the series check needs of the object joining: its identifiers and its version links. */
export interface SeriesMember {
  identifier: string;
  seriesId?: string | undefined;
  obsoletes?: string | undefined;
  obsoletedBy?: string | undefined;
}

/**
 * `member` (already written in `tx`) takes its seriesId. A new SID starts a series headed by it. An existing
 * series is joined by the version that obsoletes its head (which becomes the head), or by a version linked to a
 * member that arrived late (a harvest or a replica out of order: the head is chosen again). Anything else is a
 * SeriesConflictError: the SID is a PID, or another chain's. `copied`: the record is another node's copy (a
 * replica), whose authoritative node judged its chain; it joins whenever the SID is a series.
 */
export async function joinSeries(tx: Kysely<Tables>, member: SeriesMember, copied: boolean): Promise<void> {
  const sid = member.seriesId;
  if (sid === undefined) return;
  const pid = member.identifier;
  const started = await tx
    .insertInto("identifiers")
    .values({ id: sid, kind: "sid", head: pid })
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("id")
    .executeTakeFirst();
  if (started) return;
  if (member.obsoletes !== undefined) {
    // Conditional on the head: of versions racing to continue the series, the first one to commit moves it.
    const moved = await seriesRow(tx, sid)
      .set({ head: pid })
      .where("head", "=", member.obsoletes)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 1) return;
  }
  // Locks the series' row (PostgreSQL) so that its members do not change while they are judged.
  const locked = await seriesRow(tx, sid)
    .set((eb) => ({ head: eb.ref("head") }))
    .returning("head")
    .executeTakeFirst();
  if (!locked) throw new SeriesConflictError(sid, pid);
  if (!copied && !(await linkedToMember(tx, sid, member))) throw new SeriesConflictError(sid, pid);
  await seriesRow(tx, sid)
    .set({ head: (await newestHead(tx, sid)) ?? pid })
    .execute();
}

/** After `sid` lost a member (removed, or its seriesId changed): the head is chosen again; no member, no series. */
export async function leaveSeries(tx: Kysely<Tables>, sid: string | null | undefined): Promise<void> {
  if (sid === null || sid === undefined) return;
  const head = await newestHead(tx, sid);
  if (head === undefined) {
    await tx.deleteFrom("identifiers").where("id", "=", sid).where("kind", "=", "sid").execute();
  } else {
    await seriesRow(tx, sid).set({ head }).execute();
  }
}

/** A removed object's PID is free again (as it was before this table: no object, no identifier in use). */
export async function releasePid(tx: Kysely<Tables>, pid: string): Promise<void> {
  await tx.deleteFrom("identifiers").where("id", "=", pid).where("kind", "=", "pid").execute();
}

const seriesRow = (tx: Kysely<Tables>, sid: string) =>
  tx.updateTable("identifiers").where("id", "=", sid).where("kind", "=", "sid");

/**
 * Whether a member of the series links to `member`: it names `member` as obsoletes or obsoletedBy, or `member`
 * names it as obsoletedBy. (Obsoleting a member other than the head would branch the chain.)
 */
async function linkedToMember(tx: Kysely<Tables>, sid: string, member: SeriesMember): Promise<boolean> {
  const pid = member.identifier;
  const row = await tx
    .selectFrom("objects")
    .select("pid")
    .where("sid", "=", sid)
    .where("pid", "!=", pid)
    .where((eb) => {
      const links = [eb("obsoletes", "=", pid), eb("obsoleted_by", "=", pid)];
      if (member.obsoletedBy !== undefined) links.push(eb("pid", "=", member.obsoletedBy));
      return eb.or(links);
    })
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The newest head of a series: of its members not obsoleted by another member, the latest dateUploaded, then the
 * greatest PID (so the answer does not depend on row order). With one chain, its one head.
 */
export async function newestHead(db: Kysely<Tables>, sid: string): Promise<string | undefined> {
  const members = await db
    .selectFrom("objects")
    .select(["pid", "obsoleted_by", "date_uploaded"])
    .where("sid", "=", sid)
    .execute();
  const inSeries = new Set(members.map((m) => m.pid));
  let head: (typeof members)[number] | undefined;
  for (const m of members) {
    if (m.obsoleted_by !== null && inSeries.has(m.obsoleted_by)) continue;
    const newer = head ? m.date_uploaded - head.date_uploaded || compareCodePoints(m.pid, head.pid) : 1;
    if (newer > 0) head = m;
  }
  return head?.pid;
}

/**
 * Series rows for objects written without the checks (a bulk load): each SID not yet in use goes to its newest
 * head, as the migration that created the table does. Plain SQL, for a raw SQLite handle too.
 */
export const REGISTER_LOADED_SERIES = `insert into identifiers (id, kind, head)
  select sid, 'sid', pid from (
    select o.sid, o.pid,
      row_number() over (partition by o.sid order by o.date_uploaded desc, o.pid desc) as rank
    from objects o
    where o.sid is not null
      and not exists (select 1 from objects m where m.pid = o.obsoleted_by and m.sid = o.sid)
  ) as heads
  where rank = 1
  on conflict (id) do nothing`;
