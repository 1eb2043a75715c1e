/** `d1node import ...args` as a child process, as an operator runs it: its exit code and what it wrote. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/d1node.js", import.meta.url));

export interface ImportRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function startImport(args: string[]): { child: ChildProcess; done: Promise<ImportRun> } {
  const child = spawn(process.execPath, [BIN, "import", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<ImportRun>((resolve) =>
    child.once("exit", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

export const runImport = (args: string[]): Promise<ImportRun> => startImport(args).done;
