/** Runs the real `d1node` command to its end. */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `cwd`: the folder the command runs in (default: the test's own). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        env: { ...process.env, D1NODE_DEBUG: "", ...env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 90_000,
        ...(cwd ? { cwd } : {}),
      },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
