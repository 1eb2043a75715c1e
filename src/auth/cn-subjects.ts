/**
 * The Coordinating Node subjects a Member Node trusts for the CN-only calls, when `cnSubjects` is not set: taken
 * from its CN's node registry (CNCore.listNodes, "GET /node"), the `subject` entries of every node of type "cn",
 * as DataONE's own Member Nodes (GMN) derive them. Fetched at start, every hour, and again when a caller with a
 * node subject ("CN=urn:node:...") is not among them (at most once a minute); a CN that cannot be reached
 * leaves the subjects as they were.
 */
import { request } from "undici";
import { ServiceFailure } from "../errors/exceptions.ts";
import { CN_DOCUMENT_BYTES, DOCUMENT_DEADLINE_MS, deadlineSignal, readCappedText } from "../remote/limits.ts";
import { parseNodeList } from "../types/index.ts";
import { type NodeCallConfig, nodeDispatcher } from "./node-credentials.ts";
import { type Refresher, refreshing } from "./refreshing.ts";
import { isSymbolicSubject } from "./subjects.ts";

export interface CnSubjectOptions {
  cnBaseUrl: string;
  node: NodeCallConfig;
  /** Called with the new list whenever it changes. */
  onChange: (subjects: readonly string[]) => void;
  warn?: (message: string) => void;
  refreshMs?: number;
  minIntervalMs?: number;
  timeoutMs?: number;
}

/** "CN=urn:node:ID,DC=dataone,DC=org": the subject form of node certificates, CNs' among them. */
export function isNodeSubject(subject: string): boolean {
  return /^CN=urn:node:/i.test(subject);
}

export function createCnSubjectSource(options: CnSubjectOptions): Refresher {
  const base = options.cnBaseUrl.replace(/\/+$/, "");
  const timeoutMs = options.timeoutMs ?? 5000;
  let known = "";
  const fetchAll = async (): Promise<boolean> => {
    let subjects: string[];
    try {
      const url = `${base}/v2/node`;
      const response = await request(url, {
        dispatcher: nodeDispatcher(options.node),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: deadlineSignal(DOCUMENT_DEADLINE_MS),
      });
      const body = await readCappedText(response.body, CN_DOCUMENT_BYTES, `GET ${url}`);
      if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}`);
      subjects = [
        ...new Set(
          parseNodeList(body, ServiceFailure)
            .filter((node) => node.type === "cn")
            .flatMap((node) => node.subjects)
            // Never a subject every caller holds, whatever the list says.
            .filter((subject) => !isSymbolicSubject(subject)),
        ),
      ];
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      options.warn?.(`the CN subjects could not be read from ${base}/v2/node (${reason}); kept as they were`);
      return false;
    }
    if (subjects.length === 0) {
      options.warn?.(`the node list at ${base}/v2/node names no CN subject; kept as they were`);
      return false;
    }
    const key = subjects.join("\n");
    if (key === known) return false;
    known = key;
    options.onChange(subjects);
    return true;
  };
  return refreshing(fetchAll, options);
}
