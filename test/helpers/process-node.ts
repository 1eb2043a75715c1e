/** A node running as its own process (`d1node serve`), for tests that kill it. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/d1node.js", import.meta.url));

export interface NodeProcess {
  child: ChildProcess;
  baseUrl: string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnNode(args: string[]): Promise<NodeProcess> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--log-level", "warn", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`node did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving (\S+)/.exec(output);
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
    kill: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}
