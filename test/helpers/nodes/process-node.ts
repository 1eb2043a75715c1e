/** A node running as its own process (`d1node serve`), for tests that kill it. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));

export interface NodeProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process wrote so far (standard output and error). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `env`: further D1NODE_* settings for this node (added to the test's own environment). */
export async function spawnNode(args: string[], env: Record<string, string> = {}): Promise<NodeProcess> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--log-level", "warn", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // The line is plain text, or a JSON log line (logFormat json): the URL ends at a space or a quote.
      const match = /serving (https?:\/\/[^\s"]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`node exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    baseUrl,
    output: () => output,
    kill: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}
