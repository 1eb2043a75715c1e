/**
 * Hearing other processes' writes (PostgreSQL). Several processes may use one database (a serving node and
 * `d1node worker` processes), and each keeps objects and list positions in memory (row cache, pagers). Every
 * transaction that writes objects ends with a NOTIFY on CHANNEL naming the PIDs it wrote, one that adds to the
 * event log with a NOTIFY on EVENTS_CHANNEL; PostgreSQL delivers them on commit and drops them on rollback, so a
 * commit is never unheard, even if the process dies right after.
 * Each process LISTENs on one connection of its own (not a pooled one) and forgets what the others wrote.
 * A notice also names the lowest list key the commit wrote (objects: (dateSysMetadataModified, pid); the log:
 * the earliest date), so that list positions before it stay remembered (KeysetPager.writtenElsewhere).
 * While that connection is down, writes may go unheard: the caches are distrusted (emptied, keeping nothing)
 * until LISTEN is in place again, retried with a growing delay.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type pg from "pg";
import type { ListKey } from "../lists/order.ts";
import type { Tables } from "../schema.ts";

export const CHANNEL = "d1node_objects";
export const EVENTS_CHANNEL = "d1node_events";
/** Search index writes (src/db/index-changes.ts). */
export const INDEX_CHANNEL = "d1node_search";
/** What the listening connection calls itself in pg_stat_activity. */
export const APPLICATION_NAME = "d1node change feed";
/** "The payload ... must be shorter than 8000 bytes" (PostgreSQL, NOTIFY). */
const MAX_PAYLOAD_BYTES = 7999;
/** Any object may have changed: a write too large to list, or a bulk load. */
const EVERYTHING = "*";
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2000;
/**
 * A connection that breaks without a word (a firewall forgetting an idle connection) would lose notices unseen:
 * a query this often, answered within as long, tells that the connection still works.
 */
const HEARTBEAT_MS = 5000;

export interface ChangeListener {
  /**
   * Another process committed writes to these objects (undefined: to any), none sorting before `from` in the
   * object list (undefined: anywhere).
   */
  changed(pids: readonly string[] | undefined, from: ObjectListKey | undefined): void;
  /** Another process added to the event log, nothing dated before `from` (undefined: any date). */
  eventsAdded(from: number | undefined): void;
  /** Another process rewrote these search documents (undefined: any). */
  indexChanged(pids: readonly string[] | undefined): void;
  /** false: writes may go unheard from now on; true: listening again, every later commit will be heard. */
  trusted(heard: boolean): void;
}

export interface ChangeFeed {
  /**
   * Within a write transaction: on commit, tell the other processes which objects it wrote ("*": any) and the
   * lowest object-list key written (undefined: anywhere).
   */
  announce(
    tx: Kysely<Tables>,
    pids: readonly string[] | typeof EVERYTHING,
    from?: ObjectListKey,
  ): Promise<void>;
  /** Within a transaction adding to the event log: on commit, tell the other processes the earliest date added. */
  announceEvents(tx: Kysely<Tables>, from: number): Promise<void>;
  /** Within a search index write: on commit, tell the other processes which documents it rewrote. */
  announceIndex(tx: Kysely<Tables>, pids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** An object list key: (dateSysMetadataModified in milliseconds, pid). */
export type ObjectListKey = readonly [number, string];

/** What a notice says: who sent it, which objects (undefined: any), the lowest list key (undefined: any). */
export interface Notice {
  sender: string;
  pids: string[] | undefined;
  from: ListKey | undefined;
}

/**
 * `<sender> {"pids":[...],"from":[date,tie]}`; without `pids` when they do not fit in one payload, without
 * `from` when anywhere.
 */
export function payloadOf(
  sender: string,
  pids: readonly string[] | typeof EVERYTHING,
  from?: ListKey,
): string {
  const where = from === undefined ? {} : { from };
  if (pids !== EVERYTHING) {
    const listed = `${sender} ${JSON.stringify({ pids: [...new Set(pids)], ...where })}`;
    if (Buffer.byteLength(listed) <= MAX_PAYLOAD_BYTES) return listed;
  }
  const unlisted = `${sender} ${JSON.stringify(where)}`;
  return Buffer.byteLength(unlisted) <= MAX_PAYLOAD_BYTES ? unlisted : `${sender} {}`;
}

/** A payload read back; anything unreadable counts as any object, anywhere. */
export function parsePayload(payload: string): Notice {
  const space = payload.indexOf(" ");
  const sender = space < 0 ? payload : payload.slice(0, space);
  const notice: Notice = { sender, pids: undefined, from: undefined };
  try {
    const body: unknown = space < 0 ? {} : JSON.parse(payload.slice(space + 1));
    if (typeof body !== "object" || body === null) return notice;
    // An earlier version's payload: the PIDs alone.
    const { pids, from } = (Array.isArray(body) ? { pids: body } : body) as {
      pids?: unknown;
      from?: unknown;
    };
    if (Array.isArray(pids) && pids.every((pid) => typeof pid === "string")) notice.pids = pids;
    if (isListKey(from)) notice.from = from;
  } catch {}
  return notice;
}

function isListKey(value: unknown): value is ListKey {
  return (
    Array.isArray(value) &&
    value.length === 2 &&
    Number.isFinite(value[0]) &&
    (typeof value[1] === "string" || Number.isFinite(value[1]))
  );
}

/**
 * Starts listening (the listener first hears trusted(false), then trusted(true) once LISTEN is in place);
 * resolves after the first attempt, successful or not (later ones go on in the background).
 */
export async function startChangeFeed(url: string, listener: ChangeListener): Promise<ChangeFeed> {
  const { default: pgModule } = await import("pg");
  /** Tells this feed's own announcements apart: the process heard its own writes in detail already. */
  const sender = randomBytes(6).toString("hex");
  let client: pg.Client | undefined;
  let closed = false;
  let delay = FIRST_RETRY_MS;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    timer = undefined;
    const next = new pgModule.Client({
      connectionString: url,
      application_name: APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: HEARTBEAT_MS,
    });
    let lost = false;
    let heartbeat: NodeJS.Timeout | undefined;
    const drop = () => {
      if (lost) return;
      lost = true;
      clearInterval(heartbeat);
      if (client === next) client = undefined;
      listener.trusted(false);
      next.end().catch(() => undefined);
      if (!closed) {
        timer = setTimeout(connect, delay);
        timer.unref();
        delay = Math.min(delay * 2, LAST_RETRY_MS);
      }
    };
    next.on("error", drop);
    next.on("end", drop);
    next.on("notification", (message) => {
      const notice = parsePayload(message.payload ?? "");
      if (notice.sender === sender) return;
      const { pids, from } = notice;
      if (message.channel === CHANNEL) {
        listener.changed(pids, typeof from?.[1] === "string" ? [from[0], from[1]] : undefined);
      } else if (message.channel === EVENTS_CHANNEL) listener.eventsAdded(from?.[0]);
      else if (message.channel === INDEX_CHANNEL) listener.indexChanged(pids);
    });
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}; listen ${EVENTS_CHANNEL}; listen ${INDEX_CHANNEL}`);
    } catch {
      drop();
      return;
    }
    if (lost) return;
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    delay = FIRST_RETRY_MS;
    heartbeat = setInterval(() => {
      const late = setTimeout(drop, HEARTBEAT_MS).unref();
      next.query("select 1").then(() => clearTimeout(late), drop);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    listener.trusted(true);
  };

  listener.trusted(false);
  await connect();
  return {
    async announce(tx, pids, from) {
      await sql`select pg_notify(${CHANNEL}, ${payloadOf(sender, pids, from)})`.execute(tx);
    },
    async announceEvents(tx, from) {
      await sql`select pg_notify(${EVENTS_CHANNEL}, ${payloadOf(sender, [], [from, 0])})`.execute(tx);
    },
    async announceIndex(tx, pids) {
      await sql`select pg_notify(${INDEX_CHANNEL}, ${payloadOf(sender, pids)})`.execute(tx);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
