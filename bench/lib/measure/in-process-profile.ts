/**
 * A CPU profile of work done in the bench's own process (a node started in-process, e.g. the CN of
 * log-aggregation): BENCH_PROFILE_DIR=DIR writes `<name>.cpuprofile` there, covering `work` alone (not the
 * loading or the baseline around it). Open it in Chrome DevTools or summarize it by self time.
 */
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";

export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE_DIR;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await work();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    await writeFile(path.join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
