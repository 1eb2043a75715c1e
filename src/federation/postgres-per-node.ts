/** One PostgreSQL database per node of a local federation, created on first use: <database>_<node name>. */
export function postgresDatabasePerNode(serverUrl: string): (name: string) => Promise<string> {
  return async (name) => {
    const url = new URL(serverUrl);
    const database = `${url.pathname.replace(/^\//, "") || "d1node"}_${name}`.replace(/\W/g, "_");
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const found = await client.query("select 1 from pg_database where datname = $1", [database]);
      if (found.rowCount === 0) await client.query(`create database "${database}"`);
    } finally {
      await client.end();
    }
    url.pathname = `/${database}`;
    return url.toString();
  };
}
