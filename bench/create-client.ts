/**
 * A create load generator, run as its own process so that its CPU is not the server's: `concurrency` clients on
 * keep-alive connections each send multipart create bodies (built before the clock starts) one after another.
 * Usage: node --import tsx bench/create-client.ts '{"baseUrl":..., "token":..., "count":..., ...}'
 * Prints one JSON line: { count, seconds, perSecond, failures, firstError }.
 */
import http from "node:http";
import { CONTENT_TYPE, createBody, smallContent } from "./lib/multipart.ts";

export interface CreateLoad {
  /** Base URL up to the API version, e.g. http://127.0.0.1:1234/mn */
  baseUrl: string;
  token: string;
  count: number;
  concurrency: number;
  /** Identifiers are `${prefix}${index}`. */
  prefix: string;
  size?: number;
}

export interface CreateResult {
  count: number;
  seconds: number;
  perSecond: number;
  failures: number;
  firstError?: string;
}

async function main(load: CreateLoad): Promise<CreateResult> {
  const url = new URL(`${load.baseUrl}/v2/object`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: load.concurrency });
  const bodies = Array.from({ length: load.count }, (_, i) =>
    createBody(`${load.prefix}${i}`, smallContent(`${load.prefix}${i}`, load.size ?? 1024)),
  );
  let next = 0;
  let failures = 0;
  let firstError: string | undefined;
  const worker = async () => {
    for (let i = next++; i < bodies.length; i = next++) {
      const body = bodies[i] as Buffer;
      const { status, text } = await post(url, agent, load.token, body);
      if (status !== 200) {
        failures++;
        firstError ??= `${status} ${text.slice(0, 300)}`;
      }
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: load.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  return {
    count: load.count,
    seconds,
    perSecond: load.count / seconds,
    failures,
    ...(firstError ? { firstError } : {}),
  };
}

function post(
  url: URL,
  agent: http.Agent,
  token: string,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": CONTENT_TYPE,
          "content-length": body.length,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

const load = JSON.parse(process.argv[2] ?? "{}") as CreateLoad;
process.stdout.write(`${JSON.stringify(await main(load))}\n`);
