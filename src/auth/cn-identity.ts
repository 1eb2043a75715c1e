/**
 * Groups and equivalent identities from the Coordinating Node: CNIdentity.getSubjectInfo, "GET /accounts/{subject}.
 * Returns SubjectInfo for a person or group." Answers are cached for a TTL (NotFound too); when the CN cannot be
 * reached the lookup yields nothing (the session keeps its own subjects) and the failure is cached briefly, so
 * that an unreachable CN costs one timeout per subject and period, not one per request.
 */
import { request } from "undici";
import { InvalidRequest } from "../errors/exceptions.ts";
import { CN_DOCUMENT_BYTES, DOCUMENT_DEADLINE_MS, deadlineSignal, readCappedText } from "../remote/limits.ts";
import { parseSubjectInfo, type SubjectInfo } from "../types/index.ts";
import { type NodeCallConfig, nodeDispatcher } from "./node-credentials.ts";

export interface SubjectInfoSource {
  /** The CN's SubjectInfo for a subject; undefined when unknown there or when the CN cannot be asked. */
  lookup(subject: string): Promise<SubjectInfo | undefined>;
}

export interface CnLookupOptions {
  cnBaseUrl: string;
  /** How long an answer is reused. */
  ttlMs: number;
  /** How long to wait for the CN. */
  timeoutMs?: number;
  /** How long a failure is remembered before the CN is asked again (at most ttlMs). */
  failureTtlMs?: number;
  maxEntries?: number;
  warn?: (message: string) => void;
  now?: () => number;
  /**
   * Present this node's certificate over TLS (and trust its peer CAs). No token is sent: getSubjectInfo answers
   * anyone, and a CN that does not know this node's signing key would refuse the call over it.
   */
  node?: NodeCallConfig;
}

interface Entry {
  info: SubjectInfo | undefined;
  expires: number;
}

export function createCnSubjectInfoSource(options: CnLookupOptions): SubjectInfoSource {
  const base = options.cnBaseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 5000;
  const failureTtlMs = Math.min(options.failureTtlMs ?? 30_000, options.ttlMs);
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<SubjectInfo | undefined>>();

  const remember = (subject: string, info: SubjectInfo | undefined, ttl: number) => {
    cache.delete(subject);
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(subject, { info, expires: now() + ttl });
    return info;
  };

  const ask = async (subject: string): Promise<SubjectInfo | undefined> => {
    const url = `${base}/v2/accounts/${encodeURIComponent(subject)}`;
    try {
      const node = options.node;
      const response = await request(url, {
        ...(node ? { dispatcher: nodeDispatcher(node) } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: deadlineSignal(DOCUMENT_DEADLINE_MS),
      });
      const body = await readCappedText(response.body, CN_DOCUMENT_BYTES, `GET ${url}`);
      if (response.statusCode === 404) return remember(subject, undefined, options.ttlMs);
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      return remember(subject, parseSubjectInfo(body, InvalidRequest), options.ttlMs);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      options.warn?.(
        `CNIdentity.getSubjectInfo for "${subject}" failed (${reason}); using the session's own subjects`,
      );
      return remember(subject, undefined, failureTtlMs);
    }
  };

  return {
    lookup(subject) {
      const cached = cache.get(subject);
      if (cached && cached.expires > now()) return Promise.resolve(cached.info);
      let pending = inFlight.get(subject);
      if (!pending) {
        pending = ask(subject).finally(() => inFlight.delete(subject));
        inFlight.set(subject, pending);
      }
      return pending;
    },
  };
}
