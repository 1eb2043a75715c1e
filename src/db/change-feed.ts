/**
 * Hearing other processes' writes (PostgreSQL). Several processes may use one database (a serving node and
 * `d1node worker` processes), and each keeps objects and list positions in memory (row cache, pagers). Every
 * transaction that writes objects ends with a NOTIFY on CHANNEL naming the PIDs it wrote, one that adds to the
 * event log with a NOTIFY on EVENTS_CHANNEL; PostgreSQL delivers them on commit and drops them on rollback, so a
 * commit is never unheard, even if the process dies right after.
 * Each process LISTENs on one connection of its own (not a pooled one) and forgets what the others wrote.
 * While that connection is down, writes may go unheard: the caches are distrusted (emptied, keeping nothing)
 * until LISTEN is in place again, retried with a growing delay.
 */
import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type pg from "pg";
import type { Tables } from "./schema.ts";

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
  /** Another process committed writes to these objects (undefined: to any). */
  changed(pids: readonly string[] | undefined): void;
  /** Another process added to the event log. */
  eventsAdded(): void;
  /** Another process rewrote these search documents (undefined: any). */
  indexChanged(pids: readonly string[] | undefined): void;
  /** false: writes may go unheard from now on; true: listening again, every later commit will be heard. */
  trusted(heard: boolean): void;
}

export interface ChangeFeed {
  /** Within a write transaction: on commit, tell the other processes which objects it wrote ("*": any). */
  announce(tx: Kysely<Tables>, pids: readonly string[] | typeof EVERYTHING): Promise<void>;
  /** Within a transaction adding to the event log: on commit, tell the other processes. */
  announceEvents(tx: Kysely<Tables>): Promise<void>;
  /** Within a search index write: on commit, tell the other processes which documents it rewrote. */
  announceIndex(tx: Kysely<Tables>, pids: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** `<sender> <JSON array of PIDs>`, or `<sender> *` when the list does not fit in one payload. */
export function payloadOf(sender: string, pids: readonly string[] | typeof EVERYTHING): string {
  if (pids !== EVERYTHING) {
    const listed = `${sender} ${JSON.stringify([...new Set(pids)])}`;
    if (Buffer.byteLength(listed) <= MAX_PAYLOAD_BYTES) return listed;
  }
  return `${sender} ${EVERYTHING}`;
}

/** The sender and the PIDs (undefined: any object) of a payload; anything unreadable counts as any object. */
export function parsePayload(payload: string): { sender: string; pids: string[] | undefined } {
  const space = payload.indexOf(" ");
  const sender = space < 0 ? "" : payload.slice(0, space);
  try {
    const pids: unknown = JSON.parse(payload.slice(space + 1));
    if (Array.isArray(pids) && pids.every((pid) => typeof pid === "string")) return { sender, pids };
  } catch {}
  return { sender, pids: undefined };
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
      const { sender: from, pids } = parsePayload(message.payload ?? "");
      if (from === sender) return;
      if (message.channel === CHANNEL) listener.changed(pids);
      else if (message.channel === EVENTS_CHANNEL) listener.eventsAdded();
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
    async announce(tx, pids) {
      await sql`select pg_notify(${CHANNEL}, ${payloadOf(sender, pids)})`.execute(tx);
    },
    async announceEvents(tx) {
      await sql`select pg_notify(${EVENTS_CHANNEL}, ${sender})`.execute(tx);
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
