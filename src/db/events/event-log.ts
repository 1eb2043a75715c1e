/**
 * The event log. append() queues in memory; a timer writes the queue in one transaction every 50 ms (one
 * insert per request would weigh on every read; docs/decisions.md, "Hot paths"). That suits reads; the
 * entries of writes (create, update, delete) go into the write's own transaction instead (inTransaction), so
 * that no acknowledged write lacks its entry after a crash. Lists page by (date_logged, id) keys like the
 * object list; new entries usually sort after every remembered key, so paging through the log stays cheap
 * while requests keep adding to it.
 */
import { type Kysely, type SqlBool, sql } from "kysely";
import { countRows } from "../engine/row-counts.ts";
import { insertRows } from "../engine/statement-texts.ts";
import { eventConditions, eventIncludes, listsAllEvents } from "../lists/filters.ts";
import { everyStep, hopRows, rowNumber } from "../lists/keyset-sql.ts";
import { compareKeys } from "../lists/order.ts";
import { KeysetPager, type KeysetSource } from "../lists/pager.ts";
import { WALK_FROM } from "../lists/warm-lists.ts";
import type { Tables } from "../schema.ts";
import type { EventLog, EventWriter, LogFilter, NewLogEntry } from "../types.ts";
import { EVENT_COLUMNS, harvestedRow, type NewRow, newRow, type Row, rowsOf, toEntry } from "./event-rows.ts";
import { insertHarvested } from "./harvested-events.ts";

const FLUSH_MS = 50;
const RETRY_MS = 1000;
const ROWS_PER_INSERT = 500;
/** Entries kept for a retry after a failed write; beyond this the oldest are dropped. */
const MAX_RETRY = 100_000;

export type EventKey = readonly [number, number];

export interface BatchedEventLog extends EventLog {
  /** Write what is queued and stop the timer; later appends are dropped. */
  close(): Promise<void>;
  /** Walks the unfiltered log in the background, remembering positions (KeysetPager.warm). */
  warm(signal: AbortSignal): Promise<number>;
  /** Objects were written: lists filtered by readers (which join on objects) start over. */
  objectsChanged(): void;
  /**
   * Another process added entries, none dated before `from`: the lists keep their positions before that date
   * (undefined: every list starts over).
   */
  addedElsewhere(from: number | undefined): void;
  /** false: other processes' entries may go unheard (remember no list); true: they are heard again. */
  trust(heard: boolean): void;
  /** Entries written by `tx` itself; end() once it committed or failed, so that the lists hear of them. */
  inTransaction(tx: Kysely<Tables>): TransactionEvents;
}

export interface TransactionEvents extends EventWriter {
  end(committed: boolean): void;
}

/** Marks the lists that depend on the objects table. */
const READERS = "readers:";

export interface EventLogOptions {
  /** Hears a failed write: from the timer (the batch is tried once more), or a batch dropped after its retry. */
  onError?: (error: unknown) => void;
  /**
   * Writes a batch in one transaction of its own, synchronously, when the database allows it now (SQLite with no
   * transaction open on its handle); returns false otherwise. Past the query builder, whose building of the
   * multi-row INSERTs weighs on small gets.
   */
  insertNow?: (rows: readonly NewRow[]) => boolean;
  /**
   * Runs in each transaction adding entries, after them: tells other processes (PostgreSQL) on commit, with the
   * earliest date added.
   */
  announce?: (tx: Kysely<Tables>, from: number) => Promise<void>;
  /**
   * Runs in each transaction adding entries through the query builder, with the number added: SQLite, where the
   * writers keep `row_counts` themselves (migration 0017; `insertNow` counts its own batches).
   */
  countAdded?: (tx: Kysely<Tables>, added: number) => Promise<void>;
}

export function eventLog(db: Kysely<Tables>, options: EventLogOptions = {}): BatchedEventLog {
  const pager = new KeysetPager<EventKey, NewRow>(compareKeys, WALK_FROM);
  /**
   * The queued entries' values, flat (pid, ip, user_agent, subject, event, date_logged, node_id, then the next
   * entry's): no object per entry lives until the flush, so none is promoted to the old generation
   * (queued row objects would outlive the young generation's collections).
   */
  let queue: (string | number)[] = [];
  /** The batch whose write failed, tried once more on the next flush. */
  let retry: NewRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  /** The last write; never rejects, so one failure does not stop the ones after it. */
  let writing: Promise<void> = Promise.resolve();

  const write = async (batch: NewRow[]) => {
    pager.begin();
    try {
      if (!options.insertNow?.(batch)) await insertBatch(batch);
    } catch (error) {
      pager.end([]);
      throw error;
    }
    // Only keys at or after a new entry's date can have moved ([date, 0]: whatever its id).
    pager.end(batch.map((row) => ({ key: [row.date_logged, 0], after: row })));
  };

  const insertBatch = (batch: NewRow[]) =>
    db.transaction().execute(async (tx) => {
      for (let i = 0; i < batch.length; i += ROWS_PER_INSERT) {
        await tx
          .insertInto("events")
          .values(batch.slice(i, i + ROWS_PER_INSERT))
          .execute();
      }
      await options.countAdded?.(tx, batch.length);
      await options.announce?.(tx, earliest(batch));
    });

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const again = retry;
    const batch = rowsOf(queue);
    retry = [];
    queue = [];
    if (again.length === 0 && batch.length === 0) return writing;
    const done = writing.then(async () => {
      // A batch gets one more try; failing again, it is dropped so that it cannot block the entries after it.
      if (again.length > 0) await write(again).catch((error: unknown) => options.onError?.(error));
      if (batch.length > 0) {
        await write(batch).catch((error: unknown) => {
          retry = batch.slice(-MAX_RETRY);
          throw error;
        });
      }
    });
    writing = done.catch(() => undefined);
    return done;
  };

  const schedule = (delay: number) => {
    timer ??= setTimeout(() => {
      flush().catch((error: unknown) => {
        options.onError?.(error);
        if (!closed) schedule(RETRY_MS);
        // A retry does not keep the process alive.
        timer?.unref();
      });
    }, delay);
  };

  /** The filter's list as the pager reads it. */
  const listSource = (filter: LogFilter): KeysetSource<Row, EventKey, NewRow> => {
    const base = db.selectFrom("events").where((eb) => eb.and(eventConditions(eb, filter)));
    const { fromDate, toDate, ...undated } = filter;
    return {
      cacheKey: `${filter.readableBy ? READERS : ""}${JSON.stringify(filter)}`,
      // A date window is a range of the (date_logged, id) order: [date, 0] sorts before every entry of that date.
      ...(fromDate || toDate
        ? {
            slice: {
              parent: listSource(undated),
              ...(fromDate ? { from: [fromDate.getTime(), 0] as const } : {}),
              ...(toDate ? { to: [toDate.getTime(), 0] as const } : {}),
            },
          }
        : {}),
      countIsKept: listsAllEvents(filter),
      count: async () => {
        if (listsAllEvents(filter)) return countRows(db, "events");
        const row = await base.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
        return Number(row?.n ?? 0);
      },
      fetch: (after, offset, limit) => {
        let query = base.selectAll("events");
        if (after) query = query.where(sql<SqlBool>`(date_logged, id) > (${after[0]}, ${after[1]})`);
        query = query.orderBy("date_logged").orderBy("id").limit(limit);
        return (offset > 0 ? query.offset(offset) : query).execute() as Promise<Row[]>;
      },
      keysEvery: async (after, first, step, hops) => {
        let keys = base.select(["date_logged", "id", rowNumber(sql`date_logged, id`)]);
        if (after) keys = keys.where(sql<SqlBool>`(date_logged, id) > (${after[0]}, ${after[1]})`);
        keys = keys
          .orderBy("date_logged")
          .orderBy("id")
          .limit(hopRows(first, step, hops));
        const rows = await db
          .selectFrom(keys.as("keys"))
          .select(["date_logged", "id"])
          .where(everyStep(first, step))
          .orderBy("n")
          .execute();
        return rows.map((row): EventKey => [Number(row.date_logged), Number(row.id)]);
      },
      keyOf: (row): EventKey => [Number(row.date_logged), Number(row.id)],
      includes: eventIncludes(filter),
    };
  };

  return {
    append(entry: NewLogEntry) {
      if (closed) return;
      queue.push(
        entry.identifier,
        entry.ipAddress,
        entry.userAgent,
        entry.subject,
        entry.event,
        entry.dateLogged.getTime(),
        entry.nodeIdentifier,
      );
      schedule(FLUSH_MS);
    },
    flush,
    async addHarvested(entries, alsoInTransaction) {
      if (entries.length === 0) return 0;
      pager.begin();
      let added: NewRow[] = [];
      try {
        await db.transaction().execute(async (tx) => {
          added = await insertHarvested(tx, entries.map(harvestedRow));
          await options.countAdded?.(tx, added.length);
          if (added.length > 0) await options.announce?.(tx, earliest(added));
          await alsoInTransaction?.(tx, added.length);
        });
      } catch (error) {
        pager.end("unknown");
        throw error;
      }
      pager.end(added.map((row) => ({ key: [row.date_logged, 0], after: row })));
      return added.length;
    },
    objectsChanged() {
      pager.forget((cacheKey) => cacheKey.startsWith(READERS));
    },
    addedElsewhere(from) {
      if (from === undefined) pager.forget(() => true);
      else pager.writtenElsewhere([from, 0]);
    },
    trust(heard) {
      pager.trust(heard);
    },
    inTransaction(tx) {
      const added: NewRow[] = [];
      let announced = Number.POSITIVE_INFINITY;
      let ended = false;
      pager.begin();
      return {
        async add(entry) {
          const row = newRow(entry);
          await insertRows(tx, "events", EVENT_COLUMNS, [row]);
          await options.countAdded?.(tx, 1);
          // Usually once: later entries of a write are rarely dated earlier.
          if (row.date_logged < announced) {
            announced = row.date_logged;
            await options.announce?.(tx, announced);
          }
          added.push(row);
        },
        end(committed) {
          if (ended) return;
          ended = true;
          if (!committed && added.length > 0) pager.end("unknown");
          else pager.end(added.map((row) => ({ key: [row.date_logged, 0], after: row })));
        },
      };
    },
    async close() {
      closed = true;
      await pager.stopWalks();
      await flush();
    },
    async list(filter, start, count) {
      const { total, rows } = await pager.page<Row>(listSource(filter), start, count);
      return { start, total, items: rows.map(toEntry) };
    },
    warm: (signal) => pager.warm(listSource({}), signal),
  };
}

function earliest(rows: readonly Pick<NewRow, "date_logged">[]): number {
  return rows.reduce((low, row) => Math.min(low, Number(row.date_logged)), Number.POSITIVE_INFINITY);
}
