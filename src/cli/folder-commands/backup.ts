/**
 * `d1node backup DIR` and `d1node restore DIR` for a node on the embedded (SQLite) database (src/ops/backup.ts).
 * Backup works while the node serves (the node itself copies, asked over its control socket) or with the node
 * stopped. Restore fills an empty data folder (the node stopped), then audits what it restored. A PostgreSQL
 * node is copied with pg_dump plus its store folder (docs/deployment.md, "Backup and restore").
 * Exit code: 0 done, 1 some stored bytes are damaged (backup: found while copying, each object named; restore: the
 * restored bytes failed the audit), 2 nothing could be done.
 */
import path from "node:path";
import type { Command } from "commander";
import { auditStoredObjects, findingWord } from "../../ops/audit.ts";
import type { CopyProgress } from "../../ops/backup.ts";
import { type BackupManifest, BackupRefused, backupNode, restoreNode } from "../../ops/backup.ts";
import { askRunningNode } from "../../ops/control-client.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";
import { mib, progressLine } from "../progress.ts";
import { nodeIsRunning, openLocalNode } from "./node-access.ts";

const POSTGRES =
  "a PostgreSQL node is backed up with pg_dump and a copy of its store folder (see docs/deployment.md)";

export function registerBackupCommands(program: Command): void {
  addCommonOptions(
    program
      .command("backup")
      .argument("<dir>", "new (or empty) folder for the backup")
      .description("consistent copy of a node's database and stored bytes, while it runs (SQLite)"),
  ).action(async (dir: string, flags: CommonFlags) => {
    const config = configFromFlags(flags as CommonFlags & Record<string, unknown>);
    if (config.databaseUrl) throw new BackupRefused(POSTGRES);
    const target = path.resolve(dir);
    const line = progressLine();
    const show = copyProgress(line, "copied");
    let manifest: BackupManifest;
    if (await nodeIsRunning(config)) {
      manifest = (await askRunningNode(
        config.dataDir,
        `/backup?dir=${encodeURIComponent(target)}`,
        (message) => {
          if (message.progress) show(message.progress as CopyProgress);
        },
      )) as BackupManifest;
    } else {
      const local = await openLocalNode(config);
      try {
        manifest = await backupNode({ ...local, dataDir: config.dataDir }, target, show);
      } finally {
        await local.close();
      }
    }
    line.finish(`backup complete: ${target}`);
    process.stdout.write(
      `backup of ${manifest.objects} objects (${manifest.contentFiles} files, ${mib(manifest.bytes)} MiB) ` +
        `as of ${manifest.snapshotAt} in ${target}\n`,
    );
    const damaged = manifest.damaged ?? [];
    for (const bad of damaged) {
      for (const pid of bad.pids) process.stdout.write(`${findingWord(bad.kind)} ${pid}: ${bad.detail}\n`);
    }
    if (damaged.length > 0) {
      process.stdout.write(
        `${damaged.length} damaged content files (listed in BACKUP.json; the rest of the backup is good): ` +
          "repair them (d1node audit --repair, or --from-backup an older backup), then back up again\n",
      );
      process.exitCode = 1;
    }
  });

  addCommonOptions(
    program
      .command("restore")
      .argument("<dir>", "a folder written by d1node backup")
      .description("restore a backup into an empty data folder (node stopped), then audit it"),
  ).action(async (dir: string, flags: CommonFlags) => {
    const config = configFromFlags(flags as CommonFlags & Record<string, unknown>);
    if (config.databaseUrl) throw new BackupRefused(POSTGRES);
    const line = progressLine();
    const manifest = await restoreNode(path.resolve(dir), config.dataDir, copyProgress(line, "restored"));
    line.finish(`restored ${manifest.objects} objects as of ${manifest.snapshotAt} into ${config.dataDir}`);
    const local = await openLocalNode(config);
    try {
      const run = await auditStoredObjects(local, { trigger: "restore" });
      process.stdout.write(
        `restored ${manifest.objects} objects into ${config.dataDir}; audit: ${run.objects} objects, ` +
          `${run.mismatches} mismatched, ${run.missing} missing\n`,
      );
      for (const finding of run.findings)
        process.stdout.write(`${findingWord(finding.kind)} ${finding.pid}: ${finding.detail}\n`);
      if (run.mismatches + run.missing > 0) process.exitCode = 1;
    } finally {
      await local.close();
    }
  });
}

function copyProgress(line: ReturnType<typeof progressLine>, verb: string) {
  return (p: Readonly<CopyProgress>) =>
    line.update(
      () => `${verb} ${p.files} / ${p.totalFiles} files, ${mib(p.bytes)} / ${mib(p.totalBytes)} MiB`,
    );
}
