/**
 * One PostgreSQL database per node of a local federation, created on first use: <database>_<node name>. The
 * server is reached through its maintenance database `postgres` (the URL's own database need not exist); a role
 * that may not create databases gets told exactly which one to create.
 */
export function postgresDatabasePerNode(serverUrl: string): (name: string) => Promise<string> {
  return async (name) => {
    const url = new URL(serverUrl);
    const database = `${url.pathname.replace(/^\//, "") || "d1node"}_${name}`.replace(/\W/g, "_");
    const maintenance = new URL(serverUrl);
    maintenance.pathname = "/postgres";
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: maintenance.toString() });
    await client.connect();
    try {
      const found = await client.query("select 1 from pg_database where datname = $1", [database]);
      if (found.rowCount === 0) {
        await client.query(`create database "${database}"`).catch((error: { code?: string }) => {
          if (error.code !== "42501") throw error;
          throw new Error(
            `PostgreSQL role "${url.username}" may not create databases: create "${database}" ` +
              `(CREATE DATABASE "${database}" OWNER "${url.username}";) or use a role with CREATEDB`,
          );
        });
      }
    } finally {
      await client.end();
    }
    url.pathname = `/${database}`;
    return url.toString();
  };
}
