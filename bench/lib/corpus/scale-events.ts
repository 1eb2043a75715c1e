/**
 * Synthetic event-log rows for the scale section, streamed into PostgreSQL with COPY FROM STDIN (the bulk path
 * `d1node load` takes for objects: secondary indexes dropped while the rows go in, built again after). Entries are
 * about the loaded objects (`pidOf`), `spacingMs` apart from `firstDate` on, in id order; events are mostly reads
 * with a few creates, updates and deletes, as on a Member Node.
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

export interface EventPlan {
  count: number;
  firstDate: number;
  spacingMs: number;
  /** The identifier of the i-th entry's object. */
  pidOf(i: number): string;
  nodeId: string;
}

const ROWS_PER_CHUNK = 5000;
const COLUMNS = ["pid", "ip", "user_agent", "subject", "event", "date_logged", "node_id"];

/** The event of the i-th entry: 1 in 100 a create, 1 in 200 an update, 1 in 1000 a delete, the rest reads. */
export function eventOf(i: number): string {
  if (i % 1000 === 999) return "delete";
  if (i % 200 === 7) return "update";
  if (i % 100 === 3) return "create";
  return "read";
}

/** COPY `plan.count` rows into `events`; resolves to the seconds taken (rows, then index builds, then analyze). */
export async function copyEvents(
  url: string,
  plan: EventPlan,
  onProgress: (rows: number) => void,
): Promise<{ rowsSeconds: number; indexSeconds: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const indexes = await client.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'events'
         and indexname not in (select conname from pg_constraint)`,
    );
    for (const index of indexes.rows) await client.query(`drop index "${index.indexname}"`);
    const started = performance.now();
    // The row-count trigger would keep a copy of every row for its count: the count is added once instead.
    await client.query("begin");
    await client.query("alter table events disable trigger events_counted_insert");
    const copy = client.query(copyFrom(`copy events (${COLUMNS.join(", ")}) from stdin`));
    await pipeline(Readable.from(chunks(plan, onProgress)), copy);
    await client.query("insert into row_counts (name, n) values ('events', $1)", [plan.count]);
    await client.query("alter table events enable trigger events_counted_insert");
    await client.query("commit");
    const rowsSeconds = (performance.now() - started) / 1000;
    const indexed = performance.now();
    for (const index of indexes.rows) await client.query(index.indexdef);
    await client.query("vacuum (analyze) events");
    return { rowsSeconds, indexSeconds: (performance.now() - indexed) / 1000 };
  } finally {
    await client.end();
  }
}

function* chunks(plan: EventPlan, onProgress: (rows: number) => void): Iterable<string> {
  for (let from = 0; from < plan.count; from += ROWS_PER_CHUNK) {
    const to = Math.min(plan.count, from + ROWS_PER_CHUNK);
    let text = "";
    for (let i = from; i < to; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const subject = i % 10 === 0 ? "CN=reader,DC=dataone,DC=org" : "public";
      text += `${plan.pidOf(i)}\t${ip}\td1node-bench/1.0\t${subject}\t${eventOf(i)}\t${plan.firstDate + i * plan.spacingMs}\t${plan.nodeId}\n`;
    }
    onProgress(to);
    yield text;
  }
}
