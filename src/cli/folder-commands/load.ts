/**
 * `d1node load --count N`: fill a node's data folder with N synthetic objects (for capacity tests and
 * benchmarks). All share one content (written once to the store); each has its own identifier and complete
 * system metadata, readable by public (with --public-every N only every N-th one, the others by their rights
 * holder alone: public then reads a small fraction), dated one millisecond apart. Run it while the node is
 * stopped. The rows are written in bulk beside the write core (faster than through it; docs/decisions.md,
 * "Hot paths"); each batch queues, in the load's transaction, what the core's subscribers queue for objects
 * created by a load.
 */
import path from "node:path";
import { Readable } from "node:stream";
import type { Command } from "commander";
import { type BatchFollowUp, bulkLoadObjects } from "../../db/objects/bulk-load.ts";
import type { StoredObject } from "../../db/types.ts";
import { openNodeDatabase } from "../../node/open-database.ts";
import { queueFollowUps } from "../../node/subscribers.ts";
import { type Digests, openStore } from "../../store/index.ts";
import { OperatorError } from "../operator-error.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";
import { progressLine } from "../progress.ts";

interface LoadFlags extends CommonFlags {
  count: string;
  size: string;
  prefix?: string;
  formatId: string;
  subject: string;
  publicEvery: string;
}

export function registerLoadCommand(program: Command): void {
  addCommonOptions(
    program.command("load").description("add N synthetic objects to a node's data folder (node stopped)"),
  )
    .requiredOption("-n, --count <n>", "how many objects")
    .option("--size <bytes>", "size of the shared content", "1024")
    .option("--prefix <prefix>", "identifier prefix (default: load-<time>-)")
    .option("--format-id <id>", "formatId of every object", "text/csv")
    .option("--subject <subject>", "submitter and rightsHolder", "CN=d1node-load,DC=dataone,DC=org")
    .option("--public-every <n>", "every n-th object readable by public, the others by --subject alone", "1")
    .action(async (flags: LoadFlags) => {
      const count = Number(flags.count);
      const size = Number(flags.size);
      if (!Number.isInteger(count) || count < 0) throw new Error("--count must be a whole number");
      if (!Number.isInteger(size) || size < 0) throw new Error("--size must be a whole number");
      const publicEvery = Number(flags.publicEvery);
      if (!Number.isInteger(publicEvery) || publicEvery < 1) {
        throw new OperatorError(
          `--public-every must be a whole number of at least 1, not "${flags.publicEvery}"`,
        );
      }
      const config = configFromFlags(flags as LoadFlags & Record<string, unknown>);
      const prefix = flags.prefix ?? `load-${Date.now().toString(36)}-`;
      const seconds = await load(config, {
        count,
        size,
        prefix,
        formatId: flags.formatId,
        subject: flags.subject,
        publicEvery,
      });
      process.stderr.write(`loaded ${count} objects in ${seconds.toFixed(1)} s\n`);
    });
}

interface LoadPlan {
  count: number;
  size: number;
  prefix: string;
  formatId: string;
  subject: string;
  /** Every n-th object (from the first) is readable by public; the others by the rights holder alone. */
  publicEvery: number;
}

async function load(config: ReturnType<typeof configFromFlags>, plan: LoadPlan): Promise<number> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const db = await openNodeDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
  const store = await openStore(config);
  const line = progressLine();
  try {
    // The bytes as any upload would arrive: recorded as an intent, committed, then referenced by the rows.
    const staged = await store.stage(Readable.from([content(plan.size)]));
    await db.blobIntents.add(staged.key);
    await staged.commit();
    const objects = synthetic(plan, staged.key, staged.digests, config.nodeId);
    let done = 0;
    const shown = () =>
      `loaded ${done} / ${plan.count} (${Math.round(done / Math.max(elapsed(), 0.001))} objects/s)`;
    // A line per second at most (rewritten in place on a terminal), then the last count.
    const followUp: BatchFollowUp = (tasks, batch) =>
      queueFollowUps(
        { config },
        tasks,
        batch.map((object) => ({ kind: "created", object, origin: "load", replan: false })),
      );
    await bulkLoadObjects(
      db,
      objects,
      (loaded) => {
        done = loaded;
        line.update(shown);
      },
      { followUp },
    );
    line.finish(shown());
    await db.blobIntents.remove(staged.key);
  } finally {
    await store.close();
    await db.close();
  }
  return elapsed();
}

function* synthetic(
  plan: LoadPlan,
  contentKey: string,
  digests: Digests,
  nodeId: string,
): Iterable<StoredObject> {
  const width = String(Math.max(plan.count - 1, 0)).length;
  const base = Date.now() - plan.count;
  for (let i = 0; i < plan.count; i++) {
    const identifier = `${plan.prefix}${String(i).padStart(width, "0")}`;
    const date = new Date(base + i);
    yield {
      contentKey,
      digests,
      isReplica: false,
      sysmeta: {
        serialVersion: 1,
        identifier,
        formatId: plan.formatId,
        size: digests.size,
        checksum: { algorithm: "SHA-256", value: digests.sha256 },
        submitter: plan.subject,
        rightsHolder: plan.subject,
        accessPolicy: i % plan.publicEvery === 0 ? [{ subjects: ["public"], permissions: ["read"] }] : [],
        replicationPolicy: { replicationAllowed: false, preferredMemberNodes: [], blockedMemberNodes: [] },
        archived: false,
        dateUploaded: date,
        dateSysMetadataModified: date,
        originMemberNode: nodeId,
        authoritativeMemberNode: nodeId,
        replicas: [],
        ...(plan.formatId === "text/csv" ? { fileName: `${identifier}.csv` } : {}),
      },
    };
  }
}

/** `size` bytes of CSV-looking text. */
function content(size: number): Buffer {
  const line = "station,date,temperature\nd1node,2024-01-01,12.5\n";
  return Buffer.from(line.repeat(Math.ceil(size / line.length) || 1)).subarray(0, size);
}
