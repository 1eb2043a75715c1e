/**
 * A small Member Node of the tests' own making for `d1node import` to copy from (v2 API: node, listObjects,
 * getSystemMetadata, get, getLogRecords), listening on a free local port. It serves what the test gives it, and a
 * test makes it hostile by changing that (a listing that names other objects, system metadata for another PID,
 * bytes past the declared size, a document that never ends) or by taking a route over with `route`.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SystemMetadata } from "../../src/types/sysmeta.ts";
import type { ObjectInfo } from "../../src/types/xml-documents/lists-xml.ts";
import { serializeObjectList } from "../../src/types/xml-documents/lists-xml.ts";
import { serializeSystemMetadata } from "../../src/types/xml-documents/sysmeta-xml.ts";
import { listenLocal } from "../helpers/peers/local-server.ts";

export const FAKE_SOURCE_ID = "urn:node:FAKESOURCE";

export interface FakeObject {
  sysmeta: SystemMetadata;
  bytes: Buffer;
  /** The system metadata document served instead of the serialized `sysmeta` (raw XML: µs dates, ...). */
  sysmetaXml?: string;
}

/** A listed entry; `raw` replaces its identifier element as written (characters a serializer would refuse). */
export type ListedEntry = ObjectInfo & { raw?: string };

export interface FakeSource {
  baseUrl: string;
  objects: Map<string, FakeObject>;
  /** The listing's entries; default: every object's, in date order. */
  listing?: () => ListedEntry[];
  /** A route taken over: answers and returns true, or returns false for the default answer. */
  route?: (path: string, request: IncomingMessage, response: ServerResponse) => boolean;
  /** Bytes written in answers so far. */
  sent: number;
  close(): Promise<void>;
}

/** System metadata of `bytes` as the fake source holds them: public, owned by CN=owner, dated `at`. */
export function fakeRecord(
  pid: string,
  bytes: Buffer | string,
  at: Date,
  overrides: Partial<SystemMetadata> = {},
): FakeObject {
  const data = Buffer.from(bytes);
  return {
    bytes: data,
    sysmeta: {
      serialVersion: 1,
      identifier: pid,
      formatId: "application/octet-stream",
      size: data.length,
      checksum: { algorithm: "MD5", value: createHash("md5").update(data).digest("hex") },
      submitter: "CN=owner",
      rightsHolder: "CN=owner",
      accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
      archived: false,
      dateUploaded: at,
      dateSysMetadataModified: at,
      originMemberNode: FAKE_SOURCE_ID,
      authoritativeMemberNode: FAKE_SOURCE_ID,
      replicas: [],
      ...overrides,
    },
  };
}

const NODE_XML = (baseUrl: string) =>
  '<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" ' +
  'replicate="false" synchronize="false" type="mn" state="up">' +
  `<identifier>${FAKE_SOURCE_ID}</identifier><name>fake</name><description>a test source</description>` +
  `<baseURL>${baseUrl}/mn</baseURL><services><service name="MNRead" version="v2" available="true"/></services>` +
  "<subject>CN=fake</subject><contactSubject>CN=fake</contactSubject></d1:node>";

const notFound = (pid: string) =>
  '<?xml version="1.0" encoding="UTF-8"?>' +
  `<error name="NotFound" errorCode="404" detailCode="0"><description>no ${pid}</description></error>`;

export async function startFakeSource(): Promise<FakeSource> {
  let baseUrl = "";
  const source: FakeSource = {
    baseUrl: "",
    objects: new Map(),
    sent: 0,
    close: async () => undefined,
  };
  const send = (response: ServerResponse, status: number, body: string | Buffer) => {
    source.sent += Buffer.byteLength(body);
    response.writeHead(status, { "content-type": "text/xml" }).end(body);
  };
  const listed = (): ListedEntry[] =>
    source.listing?.() ??
    [...source.objects.values()]
      .map(({ sysmeta: s }) => ({
        identifier: s.identifier,
        formatId: s.formatId,
        checksum: s.checksum,
        dateSysMetadataModified: s.dateSysMetadataModified as Date,
        size: s.size,
      }))
      .sort((a, b) => a.dateSysMetadataModified.getTime() - b.dateSysMetadataModified.getTime());
  const server = await listenLocal((request, response) => {
    const url = new URL(request.url ?? "/", baseUrl);
    const path = url.pathname.replace(/^\/mn\/v2/, "");
    if (source.route?.(path, request, response)) return;
    if (path === "/node") return send(response, 200, NODE_XML(baseUrl));
    if (path === "/object") {
      const from = url.searchParams.get("fromDate");
      const to = url.searchParams.get("toDate");
      const all = listed().filter(
        (item) =>
          (!from || item.dateSysMetadataModified >= new Date(from)) &&
          (!to || item.dateSysMetadataModified < new Date(to)),
      );
      const start = Number(url.searchParams.get("start") ?? 0);
      const count = Number(url.searchParams.get("count") ?? 1000);
      const page = { start, total: all.length, items: all.slice(start, start + count) };
      const raw = page.items.find((item) => item.raw !== undefined);
      let xml = serializeObjectList(page);
      if (raw?.raw) xml = xml.replace(`<identifier>${raw.identifier}</identifier>`, raw.raw);
      return send(response, 200, xml);
    }
    if (path === "/log") return send(response, 200, serializeEmptyLog());
    const meta = /^\/meta\/(.+)$/.exec(path);
    const object = /^\/object\/(.+)$/.exec(path);
    const pid = decodeURIComponent((meta ?? object)?.[1] ?? "");
    const found = source.objects.get(pid);
    if (!found) return send(response, 404, notFound(pid));
    if (meta) return send(response, 200, found.sysmetaXml ?? serializeSystemMetadata(found.sysmeta, "v2"));
    source.sent += found.bytes.length;
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(found.bytes);
  });
  baseUrl = server.baseUrl;
  source.baseUrl = `${baseUrl}/mn`;
  source.close = server.close;
  return source;
}

const serializeEmptyLog = () =>
  '<?xml version="1.0" encoding="UTF-8"?><d1:log xmlns:d1="http://ns.dataone.org/service/types/v2.0" ' +
  'count="0" start="0" total="0"/>';
