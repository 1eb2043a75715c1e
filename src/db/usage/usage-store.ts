/**
 * Usage metrics' tables (migration 0026-usage-counts): the reads the counter takes from the event log, the
 * package relations it needs (which datasets an object belongs to, what a dataset holds), the monthly counts of
 * objects and datasets it adds in one transaction with its cursor, and the months a dataset or object is asked
 * for. What counts and how (robots, sessions, double clicks) is decided by the caller (src/services/usage/);
 * this file only reads and writes rows.
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

/** Counts to add to one dataset's month (yyyymm); `dataset` is its metadata object's PID. */
export interface DatasetIncrement extends UsageCounts {
  dataset: string;
  month: number;
}

/** An object of a dataset, with its format (undefined when the node holds no such object). */
export interface DatasetMember {
  pid: string;
  formatId: string | undefined;
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
  /** For each of `pids`, the metadata objects that document it in any resource map (`isDocumentedBy`). */
  documentedBy(pids: readonly string[]): Promise<Map<string, string[]>>;
  /** For each of `datasets` (metadata PIDs), the objects it documents in any resource map (`documents`). */
  membersOf(datasets: readonly string[]): Promise<Map<string, DatasetMember[]>>;
  /**
   * Adds `objects` and `datasets` increments and moves the cursor from `from` to `to`, in one transaction; false
   * (nothing written) when the cursor is no longer at `from` (another pass counted these events).
   */
  add(
    objects: readonly UsageIncrement[],
    datasets: readonly DatasetIncrement[],
    from: number,
    to: number,
  ): Promise<boolean>;
  /** One object's months in [fromMonth, toMonth], ascending, months without usage left out. */
  objectMonths(pid: string, fromMonth: number, toMonth: number): Promise<UsageMonth[]>;
  /** A dataset's months in [fromMonth, toMonth], ascending, months without usage left out. */
  datasetMonths(metadataPid: string, fromMonth: number, toMonth: number): Promise<UsageMonth[]>;
  /** Every dataset with usage in [fromMonth, toMonth], at most `limit` after `after`, in id order. */
  datasets(
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

const COUNTS = sql`u.total_investigations as ti, u.unique_investigations as ui,
  u.total_requests as tr, u.unique_requests as ur`;

const countsOf = (c: UsageCounts) => ({
  total_investigations: c.totalInvestigations,
  unique_investigations: c.uniqueInvestigations,
  total_requests: c.totalRequests,
  unique_requests: c.uniqueRequests,
});

/** Groups rows by a key, in order. */
function grouped<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const group = out.get(key(row));
    if (group) group.push(row);
    else out.set(key(row), [row]);
  }
  return out;
}

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

    async documentedBy(pids) {
      const out = new Map<string, string[]>();
      for (let i = 0; i < pids.length; i += PIDS_PER_QUERY) {
        const rows = await db
          .selectFrom("search_relations")
          .select(["subject", "object"])
          .distinct()
          .where("field", "=", "isDocumentedBy")
          .where("subject", "in", pids.slice(i, i + PIDS_PER_QUERY))
          .execute();
        for (const [pid, group] of grouped(rows, (r) => r.subject))
          out.set(
            pid,
            group.map((r) => r.object),
          );
      }
      return out;
    },

    async membersOf(datasets) {
      const out = new Map<string, DatasetMember[]>();
      for (let i = 0; i < datasets.length; i += PIDS_PER_QUERY) {
        const rows = await db
          .selectFrom("search_relations as r")
          .leftJoin("objects as o", "o.pid", "r.object")
          .select(["r.subject", "r.object", "o.format_id"])
          .distinct()
          .where("r.field", "=", "documents")
          .where("r.subject", "in", datasets.slice(i, i + PIDS_PER_QUERY))
          .execute();
        for (const [dataset, group] of grouped(rows, (r) => r.subject))
          out.set(
            dataset,
            group.map((r) => ({ pid: r.object, formatId: r.format_id ?? undefined })),
          );
      }
      return out;
    },

    async add(increments, datasetIncrements, from, to) {
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
            const values = increments
              .slice(i, i + ROWS_PER_UPSERT)
              .map((c) => ({ pid: c.pid, month: c.month, ...countsOf(c) }));
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
          for (let i = 0; i < datasetIncrements.length; i += ROWS_PER_UPSERT) {
            const values = datasetIncrements
              .slice(i, i + ROWS_PER_UPSERT)
              .map((c) => ({ dataset: c.dataset, month: c.month, ...countsOf(c) }));
            await tx
              .insertInto("usage_dataset_counts")
              .values(values)
              .onConflict((oc) =>
                oc.columns(["dataset", "month"]).doUpdateSet({
                  total_investigations: sql`usage_dataset_counts.total_investigations + excluded.total_investigations`,
                  unique_investigations: sql`usage_dataset_counts.unique_investigations + excluded.unique_investigations`,
                  total_requests: sql`usage_dataset_counts.total_requests + excluded.total_requests`,
                  unique_requests: sql`usage_dataset_counts.unique_requests + excluded.unique_requests`,
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
      const { rows } = await sql<SumRow>`select u.month, ${COUNTS} from usage_dataset_counts u
        where u.dataset = ${metadataPid} and u.month >= ${fromMonth} and u.month <= ${toMonth}
        order by u.month`.execute(db);
      return rows.map(monthOf);
    },

    async datasets(fromMonth, toMonth, after, limit) {
      const { rows } = await sql<SumRow & { dataset: string }>`with chosen as (
          select distinct dataset from usage_dataset_counts
          where month >= ${fromMonth} and month <= ${toMonth} and dataset > ${after ?? ""}
          order by dataset limit ${limit}
        )
        select u.dataset, u.month, ${COUNTS} from usage_dataset_counts u join chosen c on c.dataset = u.dataset
        where u.month >= ${fromMonth} and u.month <= ${toMonth}
        order by u.dataset, u.month`.execute(db);
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
