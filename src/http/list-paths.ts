/**
 * List operations asked with a trailing slash. Clients ask `GET {base}/v2/node/` (MetacatUI's node list) and
 * DataONE's own nodes answer it as `GET {base}/v2/node`; without this the slash would reach the route of a
 * single item (`/node/{nodeId}`) with an empty identifier. The slash is dropped before routing for the list
 * operations alone; an item's path (`/object/{pid}`) is never touched.
 */
import type { IncomingMessage } from "node:http";

/** listNodes / getCapabilities, listObjects, listFormats, getLogRecords, listSubjects, listChecksumAlgorithms, listQueryEngines, listViews. */
const LISTS = ["node", "object", "formats", "log", "accounts", "checksum", "query", "views"];

export function listPathRewriter(basePath: string): (request: IncomingMessage) => string {
  const escaped = basePath.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const listWithSlash = new RegExp(`^${escaped}/v[12]/(?:${LISTS.join("|")})/$`);
  return (request) => {
    const url = request.url ?? "/";
    if (request.method !== "GET" && request.method !== "HEAD") return url;
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (!listWithSlash.test(path)) return url;
    return path.slice(0, -1) + (queryAt === -1 ? "" : url.slice(queryAt));
  };
}
