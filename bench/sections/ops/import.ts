/**
 * import: `d1node import` from a d1node Member Node in its own process (its data folder filled with `d1node load`:
 * BENCH_IMPORT_OBJECTS objects, default 1000, of BENCH_IMPORT_BYTES each, default 65536) into a fresh node's data
 * folder (SQLite; with --postgres also a fresh PostgreSQL database). Reported: objects/s and MiB/s of the whole
 * command (start-up, listing, system metadata, bytes checked and stored, chains, search index).
 * Baseline, in the same run: the same calls made and nothing kept: listObjects pages, then getSystemMetadata and
 * get (bytes read to the end) for every object, as many at once as the import copies (4).
 */
import path from "node:path";
import { ADMIN, type Backend, backend, dbFlags, runCli, startNode, tempDir } from "../../lib/node.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

const OBJECTS = Number(process.env.BENCH_IMPORT_OBJECTS ?? 1000);
const BYTES = Number(process.env.BENCH_IMPORT_BYTES ?? 65_536);
const LANES = 4;
const PAGE = 500;
const MIB = 1024 * 1024;

export async function importSection(options: SectionOptions): Promise<void> {
  const tmp = await tempDir("import");
  const sourceDir = path.join(tmp.dir, "source");
  const sourceDb = await backend(undefined);
  try {
    await runCli(["load", "--data-dir", sourceDir, "--count", String(OBJECTS), "--size", String(BYTES)]);
    process.stderr.write("\n");
    const source = await startNode(sourceDir, sourceDb);
    try {
      // Objects modified in the last two seconds are left to a later run: let the loaded ones age.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const baseline = await listAndGet(source.baseUrl, source.token);
      let n = 0;
      for (const url of databases(options)) {
        const target = await backend(url);
        try {
          const dataDir = path.join(tmp.dir, `target-${n++}`);
          const seconds = await runCli([
            "import",
            "--from",
            source.baseUrl,
            "--token",
            source.token,
            "--data-dir",
            dataDir,
            "--admin-subject",
            ADMIN,
            ...dbFlags(target),
          ]);
          report(target, seconds, baseline);
        } finally {
          await target.dispose();
        }
      }
    } finally {
      await source.stop();
    }
  } finally {
    await sourceDb.dispose();
    await tmp.dispose();
  }
}

function report(target: Backend, seconds: number, baseline: number): void {
  const mib = (OBJECTS * BYTES) / MIB;
  record({
    section: "import",
    name: `import of ${OBJECTS} objects of ${BYTES / 1024} KiB from a d1node MN (${target.dialect})`,
    value: OBJECTS / seconds,
    unit: "objects/s",
    baseline: {
      name: `listing and getting the same objects alone (${LANES} at once)`,
      value: OBJECTS / baseline,
      unit: "objects/s",
    },
    ratio: baseline / seconds,
    notes: `${seconds.toFixed(1)} s, ${(mib / seconds).toFixed(1)} MiB/s (baseline ${baseline.toFixed(1)} s, ${(mib / baseline).toFixed(1)} MiB/s)`,
  });
}

/** Seconds to list every object and read its system metadata and bytes, LANES objects at once. */
async function listAndGet(baseUrl: string, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}` };
  const started = process.hrtime.bigint();
  const pids: string[] = [];
  for (let start = 0; ; start += PAGE) {
    const response = await fetch(`${baseUrl}/v2/object?start=${start}&count=${PAGE}`, { headers });
    const xml = await response.text();
    const found = [...xml.matchAll(/<identifier>([^<]*)<\/identifier>/g)].map((m) => m[1] as string);
    pids.push(...found);
    if (found.length < PAGE) break;
  }
  let next = 0;
  const lane = async () => {
    while (next < pids.length) {
      const id = encodeURIComponent(pids[next++] as string);
      await (await fetch(`${baseUrl}/v2/meta/${id}`, { headers })).text();
      await (await fetch(`${baseUrl}/v2/object/${id}`, { headers })).arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  if (pids.length !== OBJECTS) throw new Error(`listed ${pids.length} of ${OBJECTS} objects`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}
