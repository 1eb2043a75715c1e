/**
 * The keys that sign the Coordinating Node's tokens, fetched rather than copied. "Tokens are issued by the CN and
 * signed with the CN's certificate": a Member Node with `cnBaseUrl` trusts
 *  - the keys a d1node CN publishes at `{cnBaseUrl}/token-keys` (PEM public keys; see routes/token-keys.ts), and
 *  - over https, the public key of the CN's server certificate, as DataONE's own Member Nodes (GMN) verify the
 *    tokens of DataONE's production CN.
 * The keys are fetched at start, again every hour (so a rotated key is picked up), and when a token fails to
 * verify (at most once a minute, so bad tokens cannot make the node hammer its CN). A CN that cannot be reached
 * leaves the keys as they were.
 */
import { createPublicKey, type KeyObject, X509Certificate } from "node:crypto";
import tls from "node:tls";
import { request } from "undici";
import { loadPeerTls } from "../certificates/node-certificate.ts";
import { CN_DOCUMENT_BYTES, DOCUMENT_DEADLINE_MS, deadlineSignal, readCappedText } from "../remote/limits.ts";
import { type NodeCallConfig, nodeDispatcher } from "./node-credentials.ts";
import { refreshing } from "./refreshing.ts";

export interface TokenKeySource {
  /** The keys trusted now (a new array whenever they change). */
  current(): readonly KeyObject[];
  /** Fetch again (at most once per `minIntervalMs`); true when the trusted keys changed. */
  refresh(): Promise<boolean>;
  close(): void;
}

export interface CnTokenKeyOptions {
  cnBaseUrl: string;
  node: NodeCallConfig;
  /** Keys trusted whatever the CN says (the node's own, `trustedTokenKeys`). */
  fixed: readonly KeyObject[];
  warn?: (message: string) => void;
  refreshMs?: number;
  minIntervalMs?: number;
  timeoutMs?: number;
}

export function createCnTokenKeySource(options: CnTokenKeyOptions): TokenKeySource {
  const base = options.cnBaseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 5000;
  let keys: readonly KeyObject[] = options.fixed;

  const published = async (): Promise<KeyObject[]> => {
    const url = `${base}/token-keys`;
    const response = await request(url, {
      dispatcher: nodeDispatcher(options.node),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: deadlineSignal(DOCUMENT_DEADLINE_MS),
    });
    const text = await readCappedText(response.body, CN_DOCUMENT_BYTES, `GET ${url}`);
    if (response.statusCode !== 200) return [];
    return publicKeysFromPem(text);
  };

  const fetchAll = async (): Promise<boolean> => {
    const found: KeyObject[] = [];
    const reasons: string[] = [];
    for (const source of [published, () => serverCertificateKey(base, options.node, timeoutMs)]) {
      try {
        found.push(...(await source()));
      } catch (error) {
        reasons.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (found.length === 0) {
      options.warn?.(`the CN's token-signing keys could not be fetched from ${base} (${reasons.join("; ")})`);
      return false;
    }
    const fingerprint = (list: readonly KeyObject[]) =>
      list.map((k) => k.export({ type: "spki", format: "der" }).toString("base64")).join();
    const next = [...options.fixed, ...found];
    if (fingerprint(next) === fingerprint(keys)) return false;
    keys = next;
    return true;
  };

  const { refresh, close } = refreshing(fetchAll, options);
  return { current: () => keys, refresh, close };
}

/** Public keys from PEM text holding public keys and/or certificates. */
export function publicKeysFromPem(text: string): KeyObject[] {
  const blocks = text.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  return blocks.flatMap((block) => {
    if (block.includes("CERTIFICATE")) return [new X509Certificate(block).publicKey];
    if (block.includes("PUBLIC KEY")) return [createPublicKey(block)];
    return [];
  });
}

/** The public key of the server certificate an https URL presents (verified against peerCa or the system CAs). */
function serverCertificateKey(url: string, node: NodeCallConfig, timeoutMs: number): Promise<KeyObject[]> {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:") return Promise.resolve([]);
  const { ca } = loadPeerTls(node);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: parsed.hostname,
      port: Number(parsed.port || 443),
      ...(parsed.hostname.match(/^[\d.]+$|:/) ? {} : { servername: parsed.hostname }),
      ...(ca ? { ca } : {}),
      timeout: timeoutMs,
    });
    socket.once("secureConnect", () => {
      const raw = socket.getPeerCertificate().raw;
      socket.end();
      resolve(raw ? [new X509Certificate(raw).publicKey] : []);
    });
    socket.once("timeout", () => socket.destroy(new Error("timed out")));
    socket.once("error", reject);
  });
}
