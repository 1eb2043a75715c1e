/**
 * request-bodies: what hostile request bodies cost the node's memory. Eight concurrent anonymous requests each
 * offer 64 MiB (four 16 MiB parts) to operations that need a subject (generate, updateSystemMetadata), then eight
 * concurrent query forms offer two 16 MiB fields each. The node's peak RSS growth is set against the bytes the
 * requests offered, measured in the same run. Target: growth < 64 MiB whatever was offered (512 MiB, 256 MiB):
 * the bodies are refused or capped, never buffered.
 */
import path from "node:path";
import { type StreamedPart, streamMultipart } from "../../../test/helpers/clients/multipart-stream.ts";
import { backend, startNode, tempDir } from "../../lib/node.ts";
import { rssOf, sampleRss } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";

const MiB = 1024 * 1024;
const CONCURRENT = 8;
const HUGE: StreamedPart[] = ["a", "b", "c", "d"].map((name) => ({ name, file: true, bytes: 16 * MiB }));
const TARGET_MIB = 64;

export async function requestBodies(_options: SectionOptions): Promise<void> {
  const tmp = await tempDir("request-bodies");
  const db = await backend(undefined);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  try {
    await measure(node.pid, "8 anonymous 64 MiB writes", () =>
      Array.from({ length: CONCURRENT }, (_, i) =>
        i % 2 === 0
          ? streamMultipart(`${node.baseUrl}/v2/generate`, "POST", [
              { name: "scheme", file: false, bytes: 4 },
              ...HUGE,
            ])
          : streamMultipart(`${node.baseUrl}/v2/meta`, "PUT", [
              { name: "pid", file: false, bytes: 10 },
              ...HUGE,
            ]),
      ),
    );
    await measure(node.pid, "8 query forms with two 16 MiB fields", () =>
      Array.from({ length: CONCURRENT }, () =>
        streamMultipart(`${node.baseUrl}/v2/query/solr/`, "POST", [
          { name: "q", file: false, bytes: 16 * MiB },
          { name: "fq", file: true, bytes: 16 * MiB },
        ]),
      ),
    );
  } finally {
    await node.stop();
    await db.dispose();
    await tmp.dispose();
  }
}

async function measure(
  pid: number,
  what: string,
  requests: () => Promise<{ total: number; status: number }>[],
): Promise<void> {
  const before = rssOf(pid);
  const sampler = sampleRss(pid, 20);
  const answers = await Promise.all(requests());
  const peak = Math.max(sampler.stop(), rssOf(pid));
  const offered = answers.reduce((sum, answer) => sum + answer.total, 0);
  const growth = Math.max(peak - before, 0);
  const ratio = growth / offered;
  record({
    section: "request-bodies",
    name: `node RSS growth during ${what}`,
    value: growth / MiB,
    unit: "MiB",
    baseline: { name: "bytes the requests offered", value: offered / MiB, unit: "MiB" },
    ratio,
    target: `< ${TARGET_MIB} MiB, whatever was offered`,
    pass: growth < TARGET_MIB * MiB,
    notes: `answers ${[...new Set(answers.map((a) => a.status))].join(", ")}`,
  });
}
