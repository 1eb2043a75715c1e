/** Run the official DataONE Python client's conformance scripts (../shared/interop) against a node. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const INTEROP_DIR = fileURLToPath(new URL("../../../shared/interop/", import.meta.url));

export interface CheckRun {
  exitCode: number;
  output: string;
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
}

export function runInteropCheck(script: "mn_check.py" | "cn_check.py", args: string[]): Promise<CheckRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${INTEROP_DIR}d1py`, [`${INTEROP_DIR}${script}`, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const summary = /(\d+) passed, (\d+) failed, (\d+) skipped\s*$/.exec(output.trim());
      resolve({
        exitCode: code ?? -1,
        output,
        passed: Number(summary?.[1] ?? 0),
        failed: Number(summary?.[2] ?? -1),
        skipped: Number(summary?.[3] ?? -1),
        failures: output.split("\n").filter((line) => /^(FAIL|SKIP) /.test(line)),
      });
    });
  });
}

/** Run a Python script (source text) with the official client's interpreter; resolves with its stdout. */
export function runPythonScript(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${INTEROP_DIR}d1py`, ["-c", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      err += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`python exited ${code}:\n${err}`)),
    );
  });
}
