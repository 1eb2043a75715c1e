/**
 * Run the official DataONE Python client's conformance scripts against a node. The client kit is not part of the
 * repository: it sits beside the checkout, in ../shared/interop (its install.sh installs its Debian packages).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const INTEROP_DIR = fileURLToPath(new URL("../../../../shared/interop/", import.meta.url));

const ABSENT = `the official DataONE Python client kit is absent (no ${INTEROP_DIR}d1py)`;
const present = existsSync(`${INTEROP_DIR}d1py`);

/**
 * For `{ skip: INTEROP_SKIP }`: why the tests that drive the official client cannot run here, or false. Under CI
 * the kit must be there: nothing is skipped, and the first use fails with one line (`interopPython`).
 */
export const INTEROP_SKIP: string | false = present || process.env.CI === "true" ? false : ABSENT;

/** The kit's Python (the system python3 with the vendored client on its path). */
export function interopPython(): string {
  if (!present) throw new Error(`${ABSENT}: it is required when CI=true`);
  return `${INTEROP_DIR}d1py`;
}

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
    const child = spawn(interopPython(), [`${INTEROP_DIR}${script}`, ...args], {
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
    const child = spawn(interopPython(), ["-c", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
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
