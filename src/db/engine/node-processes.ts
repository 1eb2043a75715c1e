/**
 * PostgreSQL: how many d1node processes (serving nodes, workers, commands) use the database at the URL. Every
 * one keeps a change-feed connection open, which names itself in pg_stat_activity (APPLICATION_NAME), so a count
 * above zero says a process is using it (or was, within the seconds the server takes to see a connection gone).
 */
import { APPLICATION_NAME } from "./change-feed.ts";

export async function nodeProcessesOn(url: string): Promise<number> {
  const { default: pgModule } = await import("pg");
  const client = new pgModule.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>(
      "select count(*) as count from pg_stat_activity where datname = current_database() and application_name = $1",
      [APPLICATION_NAME],
    );
    return Number(result.rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
}
