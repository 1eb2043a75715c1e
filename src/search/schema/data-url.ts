/**
 * `dataUrl`: in DataONE's Solr schema a stored, unindexed string, "the URL that can be used to resolve the
 * location of the object given its PID" (a Coordinating Node's `{base}/v2/resolve/{pid}`, a Member Node's
 * `{base}/v2/object/{pid}`). Clients download a result's bytes from it (R's contentid). It is made when an answer
 * is built, from the base URL the node serves at then, and never stored: a node's base URL is known only once it
 * listens and may change, and no document then needs rewriting.
 */
import type { StoredDoc } from "./index-rows.ts";

/** What the node gives the answer step about itself: the URLs that documents point to. */
export interface AnswerLinks {
  /** What precedes a document's percent-encoded PID in its `dataUrl`, e.g. `https://cn.example.org/cn/v2/resolve/`. */
  readonly dataUrlPrefix: string;
}

export const DATA_URL_FIELD = "dataUrl";

/** The document's `dataUrl`, or undefined when the answer has no links or the document no PID. */
export function dataUrlOf(doc: StoredDoc, links: AnswerLinks | undefined): string | undefined {
  const pid = doc.id;
  if (links === undefined || typeof pid !== "string") return undefined;
  return `${links.dataUrlPrefix}${encodeURIComponent(pid)}`;
}
