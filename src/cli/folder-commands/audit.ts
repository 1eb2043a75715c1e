/**
 * `d1node audit`: fixity check of every stored object (src/ops/audit.ts). A node running on the embedded
 * database is asked to run it (over its control socket); a stopped node or a PostgreSQL one is audited by this
 * process. Progress on standard error, each finding and the summary on standard output, the report as JSON
 * with `--report`. Exit code: 0 all bytes match, 1 some do not (or are missing), 2 the audit could not run.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import type { AuditFinding, AuditRun } from "../../db/types.ts";
import { type AuditProgress, auditStoredObjects, findingWord } from "../../ops/audit.ts";
import { askRunningNode } from "../../ops/control-client.ts";
import { repairFromReplicas } from "../../ops/repair.ts";
import { repairFromBackup } from "../../ops/repair-from-backup.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";
import { mib, progressLine } from "../progress.ts";
import { nodeIsRunning, openLocalNode } from "./node-access.ts";

interface AuditFlags extends CommonFlags {
  rate?: string;
  report?: string;
  repair?: boolean;
  fromBackup?: string;
}

export function registerAuditCommand(program: Command): void {
  addCommonOptions(
    program
      .command("audit")
      .description("check every stored object's bytes against its recorded digests and checksum"),
  )
    .option("--rate <MiB/s>", "read at most this many MiB per second (default: no limit)")
    .option("--report <file>", "write the full report (every finding) as JSON")
    .option(
      "--repair",
      "replace bad or missing bytes with a verified copy from another node holding the object",
    )
    .option(
      "--from-backup <dir>",
      "with --repair: take good copies from this folder written by d1node backup instead of other nodes",
    )
    .action(async (flags: AuditFlags) => {
      const config = configFromFlags(flags as AuditFlags & Record<string, unknown>);
      const rate = flags.rate === undefined ? undefined : Number(flags.rate);
      if (rate !== undefined && !(rate > 0)) throw usage(`--rate must be a positive number of MiB/s`);
      const bytesPerSecond = rate ? rate * 1024 * 1024 : undefined;
      if (flags.fromBackup !== undefined && !flags.repair) throw usage("--from-backup goes with --repair");
      const fromBackup = flags.fromBackup === undefined ? undefined : path.resolve(flags.fromBackup);
      const line = progressLine();
      const started = Date.now();
      const show = (p: Readonly<AuditProgress>) =>
        line.update(
          () =>
            `audited ${p.objects} / ${p.totalObjects} objects, ${mib(p.bytes)} / ${mib(p.totalBytes)} MiB ` +
            `(${mib(p.bytes / Math.max((Date.now() - started) / 1000, 0.001))} MiB/s), ` +
            `${p.mismatches} mismatched, ${p.missing} missing`,
        );
      const report = (finding: AuditFinding) =>
        process.stdout.write(
          `${findingWord(finding.kind)} ${finding.pid}: ${finding.detail}` +
            `${finding.repaired ? (fromBackup ? " (repaired from the backup)" : " (repaired from another node)") : ""}\n`,
        );
      const skipped = (pid: string, nodeId: string, why: string) =>
        process.stderr.write(`no good copy of ${pid} from ${nodeId}: ${why}\n`);
      let run: AuditRun;
      if (await nodeIsRunning(config)) {
        const query = new URLSearchParams();
        if (bytesPerSecond) query.set("rate", String(bytesPerSecond));
        if (flags.repair) query.set("repair", "1");
        if (fromBackup) query.set("fromBackup", fromBackup);
        const ask = `/audit${query.size > 0 ? `?${query}` : ""}`;
        run = (await askRunningNode(config.dataDir, ask, (message) => {
          if (message.progress) show(message.progress as AuditProgress);
          if (message.finding) report(message.finding as AuditFinding);
          if (message.skipped) {
            const s = message.skipped as { pid: string; nodeId: string; why: string };
            skipped(s.pid, s.nodeId, s.why);
          }
        })) as AuditRun;
      } else {
        if (flags.repair && !fromBackup && !config.cnBaseUrl) throw usage(NO_CN);
        const local = await openLocalNode(config);
        try {
          const sources = { config, db: local.db, store: local.store, onSkip: skipped };
          run = await auditStoredObjects(local, {
            trigger: "command",
            bytesPerSecond,
            onProgress: show,
            onFinding: report,
            repair: fromBackup
              ? await repairFromBackup(fromBackup, sources)
              : flags.repair
                ? repairFromReplicas(sources)
                : undefined,
          });
        } finally {
          await local.close();
        }
      }
      const seconds = (Date.now() - started) / 1000;
      line.finish(`done in ${seconds.toFixed(1)} s`);
      process.stdout.write(
        `audited ${run.objects} objects, ${mib(run.bytes)} MiB in ${seconds.toFixed(1)} s ` +
          `(${mib(run.bytes / Math.max(seconds, 0.001))} MiB/s): ${run.mismatches} mismatched, ${run.missing} missing` +
          (run.repaired > 0 ? `, ${run.repaired} repaired` : "") +
          "\n",
      );
      if (flags.report) await writeFile(flags.report, `${JSON.stringify(run, null, 2)}\n`);
      if (run.mismatches + run.missing > run.repaired) process.exitCode = 1;
    });
}

const NO_CN =
  "--repair needs the node's Coordinating Node (cnBaseUrl) to find the object's other holders, or --from-backup DIR";

/** A mistake in the command line: its message is the whole story (exit code 2). */
function usage(message: string): Error {
  return Object.assign(new Error(message), { code: "D1NODE_USAGE" });
}
