/**
 * A TCP proxy in front of a node that breaks chosen requests the way bad networks do: each request's line is
 * shown to `decide`, which lets it through, cuts it after `cutAfter` bytes from the client (a dropped connection
 * mid-upload), or delivers the whole request and drops the answer (a request done on the node whose answer never
 * arrives). Counts the bytes of the PATCH requests it passed. A node's upload URLs are absolute (its baseUrl):
 * start the node with the proxy's address as its baseUrl, then set `target` to the node's port.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { startTestNode, type TestNode } from "../nodes/node.ts";

const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.[01]$/;

export type ProxyDecision = "pass" | { cutAfter: number } | "dropAnswer";

export interface TcpProxy {
  port: number;
  /** The port it forwards to (settable: a node whose public base URL is the proxy listens after it). */
  target: number;
  /** What happens to each request (default: let through). */
  decide: (requestLine: string) => ProxyDecision;
  /** Bytes the client sent on connections whose first request was a PATCH. */
  patchBytes(): number;
  close(): void;
}

export async function startTcpProxy(target = 0): Promise<TcpProxy> {
  let patchBytes = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on("close", () => open.delete(client));
    const upstream = net.connect(proxy.target, "127.0.0.1");
    let decision: ProxyDecision | undefined;
    let isPatch = false;
    let seen = 0;
    client.on("data", (chunk) => {
      const line = chunk.toString("latin1", 0, Math.min(chunk.length, 2048)).split("\r\n")[0] ?? "";
      // A request's first chunk (kept-alive connections carry several): decided while nothing is broken yet.
      if (REQUEST_LINE.test(line) && (decision === undefined || decision === "pass")) {
        decision = proxy.decide(line);
        isPatch = line.startsWith("PATCH ");
        seen = 0;
      }
      seen += chunk.length;
      if (typeof decision === "object" && seen > decision.cutAfter) {
        client.destroy();
        upstream.destroy();
        return;
      }
      if (isPatch) patchBytes += chunk.length;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (decision === "dropAnswer") {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    upstream.on("end", () => client.end());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy: TcpProxy = {
    port: (server.address() as net.AddressInfo).port,
    target,
    decide: () => "pass",
    patchBytes: () => patchBytes,
    close() {
      server.close();
      for (const socket of open) socket.destroy();
    },
  };
  return proxy;
}

/** A decision that applies `what` to the first `times` connections whose first line matches `pattern`. */
export function firstMatching(
  pattern: RegExp,
  times: number,
  what: ProxyDecision,
): (line: string) => ProxyDecision {
  let left = times;
  return (line) => {
    if (left > 0 && pattern.test(line)) {
      left--;
      return what;
    }
    return "pass";
  };
}

/** A SQLite test node whose public base URL is a proxy's: every request, upload URLs too, goes through it. */
export async function startProxiedNode(): Promise<{ node: TestNode; proxy: TcpProxy }> {
  const proxy = await startTcpProxy();
  const node = await startTestNode("sqlite", { baseUrl: `http://127.0.0.1:${proxy.port}/mn` });
  proxy.target = (node.node.app.server.address() as net.AddressInfo).port;
  return { node, proxy };
}

/** What the `d1node upload` tests run against: a proxied node, a folder, a token file of `subject` in it. */
export interface UploadBench {
  node: TestNode;
  proxy: TcpProxy;
  folder: string;
  tokenFile: string;
}

export async function openUploadBench(subject: string): Promise<UploadBench> {
  const { node, proxy } = await startProxiedNode();
  const folder = await mkdtemp(path.join(tmpdir(), "d1node-upload-"));
  const tokenFile = path.join(folder, "token");
  await writeFile(tokenFile, await node.token(subject));
  return { node, proxy, folder, tokenFile };
}

export async function closeUploadBench(bench: UploadBench | undefined): Promise<void> {
  await bench?.node.close();
  bench?.proxy.close();
  if (bench) await rm(bench.folder, { recursive: true, force: true });
}
