/** Clients the sections drive the node with: the create load process, keep-alive GETs, curl. */
import { execFile } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { CreateLoad, CreateResult } from "../create-client.ts";

const run = promisify(execFile);
const CREATE_CLIENT = fileURLToPath(new URL("../create-client.ts", import.meta.url));

/** Run the create load generator in its own process. Throws when any create failed. */
export async function createLoad(load: CreateLoad): Promise<CreateResult> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", CREATE_CLIENT, JSON.stringify(load)], {
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as CreateResult;
  if (result.failures > 0) {
    throw new Error(`${result.failures} of ${result.count} creates failed; first: ${result.firstError}`);
  }
  return result;
}

/** GET requests on one keep-alive connection (sequential), for latencies and paging. */
export class KeepAliveClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  constructor(private readonly token?: string) {}

  /** Status, body and milliseconds from sending to the last byte. */
  get(url: string): Promise<{ status: number; body: Buffer; ms: number }> {
    const started = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
      const request = http.get(
        url,
        { agent: this.agent, headers: this.token ? { authorization: `Bearer ${this.token}` } : {} },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (c: Buffer) => chunks.push(c));
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks),
              ms: Number(process.hrtime.bigint() - started) / 1e6,
            }),
          );
          response.on("error", reject);
        },
      );
      request.on("error", reject);
    });
  }

  /** Like get(), but throws unless the status is 200. */
  async ok(url: string): Promise<{ body: Buffer; ms: number }> {
    const result = await this.get(url);
    if (result.status !== 200) {
      throw new Error(`GET ${url}: ${result.status} ${result.body.toString().slice(0, 300)}`);
    }
    return result;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** curl with `-w` fields; returns them by name. Throws on a non-200 answer. */
export async function curl(args: string[], fields: string[]): Promise<Record<string, string>> {
  const format = fields.map((f) => `${f}=%{${f}}`).join("\\n");
  const { stdout } = await run("curl", ["-sS", "-w", format, ...args], { maxBuffer: 16 << 20 });
  const values: Record<string, string> = {};
  for (const line of stdout.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) values[line.slice(0, at)] = line.slice(at + 1);
  }
  if (values.http_code !== undefined && values.http_code !== "200") {
    throw new Error(`curl ${args.join(" ")}: HTTP ${values.http_code}\n${stdout.slice(0, 500)}`);
  }
  return values;
}
