/**
 * Usage metrics' tables (migration 0026-usage-counts): the reads the counter takes from the event log, the
 * monthly counts it adds in one transaction with its cursor, and the months a dataset or object is asked for.
 * What counts and how (robots, sessions, double clicks) is decided by the caller (src/usage/); this file only
 * reads and writes rows.
 */
import { type Kysely, sql } from "kysely";
import type { Tables } from "../schema.ts";

/** An event as the counter reads it. */
export interface UsageEvent {
  id: number;
  pid: string;
  event: string;
  ip: string;
  userAgent: string;
  subject: string;
  /** Milliseconds since the epoch. */
  dateLogged: number;
}

/** The four COUNTER counts of one month. */
export interface UsageCounts {
  totalInvestigations: number;
  uniqueInvestigations: number;
  totalRequests: number;
  uniqueRequests: number;
}

/** Counts to add to one object's month (yyyymm). */
export interface UsageIncrement extends UsageCounts {
  pid: string;
  month: number;
}

export interface UsageMonth extends UsageCounts {
  month: number;
}

/** A dataset's months (its id: the metadata object's PID). */
export interface DatasetUsage {
  dataset: string;
  months: UsageMonth[];
}

export interface UsageStore {
  /** The last event id counted. */
  counted(): Promise<number>;
  /**
   * The highest event id below which every event is committed: SQLite's one writer commits in id order; on
   * PostgreSQL the id seen at the previous call, once every transaction of the database begun by then has
   * ended (else 0). Records what this call saw for the next one.
   */
  countable(): Promise<number>;
  /** Events with `after` < id <= `upTo`, in id order, at most `limit`. */
  eventsAfter(after: number, upTo: number, limit: number): Promise<UsageEvent[]>;
  /** The "read" events of these objects dated in [from, to) with id <= `upTo`. */
  readsOf(pids: readonly string[], from: number, to: number, upTo: number): Promise<UsageEvent[]>;
  /**
   * Adds `increments` and moves the cursor from `from` to `to`, in one transaction; false (nothing written) when
   * the cursor is no longer at `from` (another pass counted these events).
   */
  add(increments: readonly UsageIncrement[], from: number, to: number): Promise<boolean>;
  /** One object's months in [fromMonth, toMonth], ascending, months without usage left out. */
  objectMonths(pid: string, fromMonth: number, toMonth: number): Promise<UsageMonth[]>;
  /**
   * A dataset's months: summed over the metadata object and the objects it documents in any resource map
   * (`search_relations`, field "documents").
   */
  datasetMonths(metadataPid: string, fromMonth: number, toMonth: number): Promise<UsageMonth[]>;
  /**
   * Every dataset with usage in [fromMonth, toMonth]: objects of these metadata formats and what they document,
   * by dataset id, at most `limit` datasets after `after` (in id order).
   */
  datasets(
    metadataFormats: readonly string[],
    fromMonth: number,
    toMonth: number,
    after: string | undefined,
    limit: number,
  ): Promise<DatasetUsage[]>;
}

/** Rows per multi-row upsert (6 values a row). */
const ROWS_PER_UPSERT = 200;
const PIDS_PER_QUERY = 500;

type EventRow = {
  id: number | string;
  pid: string;
  event: string;
  ip: string;
  user_agent: string;
  subject: string;
  date_logged: number | string;
};

const toEvent = (row: EventRow): UsageEvent => ({
  id: Number(row.id),
  pid: row.pid,
  event: row.event,
  ip: row.ip,
  userAgent: row.user_agent,
  subject: row.subject,
  dateLogged: Number(row.date_logged),
});

type SumRow = {
  month: number | string;
  ti: number | string;
  ui: number | string;
  tr: number | string;
  ur: number | string;
};

const monthOf = (row: SumRow): UsageMonth => ({
  month: Number(row.month),
  totalInvestigations: Number(row.ti),
  uniqueInvestigations: Number(row.ui),
  totalRequests: Number(row.tr),
  uniqueRequests: Number(row.ur),
});

const SUMS = sql`sum(u.total_investigations) as ti, sum(u.unique_investigations) as ui,
  sum(u.total_requests) as tr, sum(u.unique_requests) as ur`;

export function usageStore(db: Kysely<Tables>, dialect: "sqlite" | "postgres"): UsageStore {
  const highestId = async (on: Kysely<Tables>) => {
    const row = await on
      .selectFrom("events")
      .select((eb) => eb.fn.max("id").as("id"))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  };
  return {
    async counted() {
      const row = await db
        .selectFrom("usage_cursor")
        .select("last_id")
        .where("name", "=", "events")
        .executeTakeFirstOrThrow();
      return Number(row.last_id);
    },

    async countable() {
      if (dialect === "sqlite") return highestId(db);
      return db.transaction().execute(async (tx) => {
        const cursor = await tx
          .selectFrom("usage_cursor")
          .select(["seen_id", "seen_at"])
          .where("name", "=", "events")
          .executeTakeFirstOrThrow();
        // An id at or below the one seen was taken by a transaction begun before it was seen: once none of
        // this database's transactions begun by then is open, every such id is committed or gone.
        const { rows: open } = await sql<{ n: number | string }>`select count(*) as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
          and xact_start is not null
          and xact_start <= to_timestamp(${Number(cursor.seen_at)} / 1000000.0)`.execute(tx);
        const settled = Number(open[0]?.n ?? 0) === 0;
        const { rows: now } = await sql<{ at: string }>`select
          (extract(epoch from clock_timestamp()) * 1000000)::bigint::text as at`.execute(tx);
        const seen = await highestId(tx);
        await tx
          .updateTable("usage_cursor")
          .set({ seen_id: seen, seen_at: now[0]?.at ?? "0" })
          .where("name", "=", "events")
          .execute();
        return settled ? Number(cursor.seen_id) : 0;
      });
    },

    async eventsAfter(after, upTo, limit) {
      const rows = await db
        .selectFrom("events")
        .select(["id", "pid", "event", "ip", "user_agent", "subject", "date_logged"])
        .where("id", ">", after)
        .where("id", "<=", upTo)
        .orderBy("id")
        .limit(limit)
        .execute();
      return rows.map(toEvent);
    },

    async readsOf(pids, from, to, upTo) {
      const out: UsageEvent[] = [];
      for (let i = 0; i < pids.length; i += PIDS_PER_QUERY) {
        const rows = await db
          .selectFrom("events")
          .select(["id", "pid", "event", "ip", "user_agent", "subject", "date_logged"])
          .where("pid", "in", pids.slice(i, i + PIDS_PER_QUERY))
          .where("date_logged", ">=", from)
          .where("date_logged", "<", to)
          .where("event", "=", "read")
          .where("id", "<=", upTo)
          .execute();
        for (const row of rows) out.push(toEvent(row));
      }
      return out;
    },

    async add(increments, from, to) {
      const moved = new Error("usage cursor moved");
      try {
        await db.transaction().execute(async (tx) => {
          const result = await tx
            .updateTable("usage_cursor")
            .set({ last_id: to })
            .where("name", "=", "events")
            .where("last_id", "=", from)
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) !== 1) throw moved;
          for (let i = 0; i < increments.length; i += ROWS_PER_UPSERT) {
            const values = increments.slice(i, i + ROWS_PER_UPSERT).map((c) => ({
              pid: c.pid,
              month: c.month,
              total_investigations: c.totalInvestigations,
              unique_investigations: c.uniqueInvestigations,
              total_requests: c.totalRequests,
              unique_requests: c.uniqueRequests,
            }));
            await tx
              .insertInto("usage_counts")
              .values(values)
              .onConflict((oc) =>
                oc.columns(["pid", "month"]).doUpdateSet({
                  total_investigations: sql`usage_counts.total_investigations + excluded.total_investigations`,
                  unique_investigations: sql`usage_counts.unique_investigations + excluded.unique_investigations`,
                  total_requests: sql`usage_counts.total_requests + excluded.total_requests`,
                  unique_requests: sql`usage_counts.unique_requests + excluded.unique_requests`,
                }),
              )
              .execute();
          }
        });
        return true;
      } catch (error) {
        if (error === moved) return false;
        throw error;
      }
    },

    async objectMonths(pid, fromMonth, toMonth) {
      const { rows } = await sql<SumRow>`select u.month, ${SUMS} from usage_counts u
        where u.pid = ${pid} and u.month >= ${fromMonth} and u.month <= ${toMonth}
        group by u.month order by u.month`.execute(db);
      return rows.map(monthOf);
    },

    async datasetMonths(metadataPid, fromMonth, toMonth) {
      const { rows } = await sql<SumRow>`select u.month, ${SUMS} from usage_counts u
        where u.pid in (select ${metadataPid} union
          select r.object from search_relations r where r.subject = ${metadataPid} and r.field = 'documents')
        and u.month >= ${fromMonth} and u.month <= ${toMonth}
        group by u.month order by u.month`.execute(db);
      return rows.map(monthOf);
    },

    async datasets(metadataFormats, fromMonth, toMonth, after, limit) {
      if (metadataFormats.length === 0) return [];
      const { rows } = await sql<SumRow & { dataset: string }>`with members (dataset, member) as (
          select o.pid, o.pid from objects o where o.format_id in (${sql.join(metadataFormats)})
            and o.pid > ${after ?? ""}
          union
          select r.subject, r.object from search_relations r join objects o on o.pid = r.subject
            where r.field = 'documents' and o.format_id in (${sql.join(metadataFormats)}) and r.subject > ${after ?? ""}
        ),
        used as (
          select m.dataset, u.month, ${SUMS} from members m join usage_counts u on u.pid = m.member
          where u.month >= ${fromMonth} and u.month <= ${toMonth}
          group by m.dataset, u.month
        ),
        chosen as (select distinct dataset from used order by dataset limit ${limit})
        select used.* from used join chosen on chosen.dataset = used.dataset
        order by used.dataset, used.month`.execute(db);
      const out: DatasetUsage[] = [];
      for (const row of rows) {
        const last = out[out.length - 1];
        const month = monthOf(row);
        if (last?.dataset === row.dataset) last.months.push(month);
        else out.push({ dataset: row.dataset, months: [month] });
      }
      return out;
    },
  };
}
