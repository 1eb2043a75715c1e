/**
 * oai: an OAI-PMH ListIdentifiers walk over BENCH_OAI_OBJECTS objects (default 1,000,000; made by `d1node load`)
 * through resumption tokens, on one keep-alive connection as a harvester does. Figures: the time per page in the
 * first and the last windows of pages, and their ratio (target: flat, last / first <= 1.25, since a token is a
 * keyset cursor, not an offset). Baseline, in the same run: MNRead.listObjects pages of the same size over the
 * same corpus, walked by start=, anonymous (access-filtered, like the OAI list), with the same windows.
 */
import path from "node:path";
import { KeepAliveClient } from "../lib/clients.ts";
import { backend, dbFlags, runCli, startNode, tempDir } from "../lib/node.ts";
import { record } from "../lib/report.ts";
import { databases, type SectionOptions } from "./types.ts";

const OBJECTS = Number(process.env.BENCH_OAI_OBJECTS ?? 1_000_000);
/** The repository's ListIdentifiers page (src/oai/lists.ts). */
const PAGE = 500;
const WINDOW = 20;

export async function oai(options: SectionOptions): Promise<void> {
  for (const url of databases(options)) await onBackend(url);
}

interface Walk {
  pages: number;
  /** Milliseconds per page, in the first and last WINDOW pages. */
  first: number;
  last: number;
  total: number;
}

async function onBackend(pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("oai");
  const db = await backend(pgUrl);
  const dataDir = path.join(tmp.dir, "data");
  try {
    await runCli(["load", "--count", String(OBJECTS), "--data-dir", dataDir, ...dbFlags(db)]);
    process.stderr.write("\n");
    const node = await startNode(dataDir, db);
    const client = new KeepAliveClient(undefined);
    try {
      const oaiWalk = await walk(async (token) => {
        const query = token ? `resumptionToken=${token}` : "metadataPrefix=oai_dc";
        const { body, ms } = await client.ok(`${node.baseUrl}/oai?verb=ListIdentifiers&${query}`);
        const next = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(body.toString())?.[1];
        return { ms, next };
      });
      const listWalk = await walk(async (_token, page) => {
        const { body, ms } = await client.ok(`${node.baseUrl}/v2/object?start=${page * PAGE}&count=${PAGE}`);
        const count = Number(/count="(\d+)"/.exec(body.toString())?.[1] ?? 0);
        return { ms, next: count === PAGE && (page + 1) * PAGE < OBJECTS ? "more" : undefined };
      });
      const label = `${OBJECTS} objects, pages of ${PAGE}, ${db.dialect}`;
      const flat = oaiWalk.last / oaiWalk.first;
      record({
        section: "oai",
        name: `ListIdentifiers walk: ms per page, last ${WINDOW} / first ${WINDOW} (${label})`,
        value: flat,
        unit: "x",
        baseline: {
          name: "listObjects walk, same windows",
          value: listWalk.last / listWalk.first,
          unit: "x",
        },
        target: "flat (<= 1.25)",
        pass: flat <= 1.25,
        notes: `OAI: ${oaiWalk.pages} pages, first ${oaiWalk.first.toFixed(1)} ms, last ${oaiWalk.last.toFixed(1)} ms, ${((oaiWalk.pages / oaiWalk.total) * 1000).toFixed(0)} pages/s; listObjects: first ${listWalk.first.toFixed(1)} ms, last ${listWalk.last.toFixed(1)} ms, ${((listWalk.pages / listWalk.total) * 1000).toFixed(0)} pages/s`,
      });
      record({
        section: "oai",
        name: `ListIdentifiers walk, whole (${label})`,
        value: oaiWalk.pages / (oaiWalk.total / 1000),
        unit: "pages/s",
        baseline: {
          name: "listObjects walk",
          value: listWalk.pages / (listWalk.total / 1000),
          unit: "pages/s",
        },
        ratio: oaiWalk.pages / oaiWalk.total / (listWalk.pages / listWalk.total),
      });
    } finally {
      client.close();
      await node.stop();
    }
  } finally {
    await db.dispose();
    await tmp.dispose();
  }
}

/** Follows `step` page by page until it names no next page; times each page. */
async function walk(
  step: (token: string | undefined, page: number) => Promise<{ ms: number; next: string | undefined }>,
): Promise<Walk> {
  const times: number[] = [];
  let token: string | undefined;
  do {
    const { ms, next } = await step(token, times.length);
    times.push(ms);
    token = next;
  } while (token !== undefined);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  // The first page also counts the list (completeListSize): the windows leave it out.
  return {
    pages: times.length,
    first: mean(times.slice(1, 1 + WINDOW)),
    last: mean(times.slice(-WINDOW)),
    total: times.reduce((a, b) => a + b, 0),
  };
}
