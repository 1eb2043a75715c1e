/**
 * The PostgreSQL pool, with limits so that a database that stops answering (a frozen or unreachable server) makes
 * requests fail within seconds instead of hanging: waiting for a connection is bounded (`connectTimeoutMs`), the
 * server cancels a statement that runs too long (`statement_timeout`), and the client gives up on a statement
 * whose answer does not come (`query_timeout`: a frozen server cancels nothing). A connection whose statement
 * timed out on the client side still owes that answer, so it is closed rather than returned to the pool.
 */
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { isClientTimeout } from "../errors.ts";
import { preparedName } from "./prepared-statements.ts";

export interface PostgresLimits {
  /** Longest wait for a connection (new, or free in the pool). */
  connectTimeoutMs: number;
  /** Longest run of one statement. */
  statementTimeoutMs: number;
}

/** The client waits this much longer than the server's own limit, so that a live server cancels first. */
const CLIENT_GRACE_MS = 1000;

/**
 * The PostgreSQL driver is loaded only when used: a SQLite node never pays its memory (docs/decisions.md,
 * "Hot paths").
 */
export async function postgresPool(
  url: string,
  limits: PostgresLimits | undefined,
  size = 10,
): Promise<PostgresPool> {
  const { default: pgModule } = await import("pg");
  /** BIGINT (oid 20) as JS numbers on this pool only: sizes and millisecond dates stay below 2^53. */
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === 20
        ? (value: string) => Number(value)
        : pgModule.types.getTypeParser(oid, format)) as typeof pgModule.types.getTypeParser,
  };
  const pool = new pgModule.Pool({
    connectionString: url,
    max: size,
    types,
    ...(limits
      ? {
          connectionTimeoutMillis: limits.connectTimeoutMs,
          statement_timeout: limits.statementTimeoutMs,
          query_timeout: limits.statementTimeoutMs + CLIENT_GRACE_MS,
        }
      : {}),
  });
  // An idle pooled connection that the server ends (restart, administrator command) is dropped from the pool;
  // without a listener its error would end the process. Queries in flight still fail and report their error.
  pool.on("error", () => undefined);
  return {
    connect: async () => closingWhenTimedOut(await pool.connect()),
    end: () => pool.end(),
  };
}

/** The client as Kysely uses it; released broken (closed) once one of its statements timed out unanswered. */
function closingWhenTimedOut(client: pg.PoolClient): PostgresPoolClient {
  let broken = false;
  const query = ((...args: Parameters<pg.PoolClient["query"]>) => {
    const [text, values] = args as unknown[];
    const name = typeof text === "string" && args.length <= 2 ? preparedName(text) : undefined;
    const call = client.query as (...a: unknown[]) => unknown;
    const result = name ? call.call(client, { name, text, values }) : call.apply(client, args);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        if (isClientTimeout(error)) broken = true;
        throw error;
      });
    }
    return result;
  }) as PostgresPoolClient["query"];
  return {
    query,
    release: () => client.release(broken),
  };
}
