/** Asking a running node (on its data folder's control socket) to run a backup or an audit. */
import http from "node:http";
import { controlSocketPath } from "./control-socket.ts";

/** Thrown when the node answered with an error line. */
export class NodeRefused extends Error {}

/** Sends `request` (path and query) and hands each JSON line to `onLine`; returns the `done` value. */
export function askRunningNode(
  dataDir: string,
  request: string,
  onLine: (line: Record<string, unknown>) => void,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath: controlSocketPath(dataDir), path: request, method: "POST" },
      (response) => {
        let buffered = "";
        let outcome: { done: unknown } | { error: string } | undefined;
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          buffered += chunk;
          for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
            const line = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
            buffered = buffered.slice(end + 1);
            if ("done" in line) outcome = { done: line.done };
            else if (typeof line.error === "string") outcome = { error: line.error };
            else onLine(line);
          }
        });
        response.on("end", () => {
          if (!outcome) reject(new Error("the node closed the control connection before answering"));
          else if ("error" in outcome) reject(new NodeRefused(outcome.error));
          else resolve(outcome.done);
        });
        response.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
