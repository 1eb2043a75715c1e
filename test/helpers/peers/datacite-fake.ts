/**
 * A DataCite REST API for tests, keeping its documented contract (https://support.datacite.org/reference):
 * JSON:API documents, HTTP Basic auth with the repository ID and password, `PUT /dois/{doi}` creating or
 * updating ("upsert"), the events publish / register / hide over the states draft, registered and findable,
 * `DELETE` of drafts only, 422 with an `errors` array when the base64 `attributes.xml` fails the kernel-4.6 XSD
 * (checked with xmllint), 404 for an unknown DOI. Outages are injected: no answer, a slow answer, 429 with
 * Retry-After, 5xx.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { lintDatacite } from "../validation/datacite-xsd.ts";

export type FakeState = "draft" | "registered" | "findable";

export interface FakeDoi {
  doi: string;
  state: FakeState;
  url?: string;
  /** The kernel-4 XML last sent. */
  xml: string;
  /** Accepted PUTs, and the events they carried. */
  puts: number;
  events: string[];
}

export type Outage =
  | { kind: "down" }
  | { kind: "slow" }
  | { kind: "status"; status: number; retryAfter?: number };

const TRANSITIONS: Record<string, Partial<Record<FakeState, FakeState>>> = {
  publish: { draft: "findable", registered: "findable", findable: "findable" },
  register: { draft: "registered", registered: "registered" },
  hide: { findable: "registered", registered: "registered" },
};

export interface DataciteFake {
  url: string;
  repository: string;
  password: string;
  prefix: string;
  dois: Map<string, FakeDoi>;
  /** Requests refused by an injected outage. */
  refused: number;
  /** Answer every PUT 422, as DataCite does for a record its own checks refuse. */
  rejectRecords: boolean;
  /** Requests that reached the API (after authentication), by method. */
  calls: { method: string; doi: string }[];
  outage(outage: Outage | undefined): void;
  get(doi: string): FakeDoi | undefined;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/vnd.api+json", ...headers });
  res.end(JSON.stringify(body));
};

const errors = (status: number, ...list: { title: string; source?: string }[]) => ({
  errors: list.map((e) => ({ status: String(status), ...e })),
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startDataciteFake(prefix = "10.5072"): Promise<DataciteFake> {
  const repository = "TEST.D1NODE";
  const password = "fake-password-for-tests";
  const dois = new Map<string, FakeDoi>();
  let outage: Outage | undefined;
  const held: ServerResponse[] = [];
  const fake: DataciteFake = {
    url: "",
    repository,
    password,
    prefix,
    dois,
    refused: 0,
    rejectRecords: false,
    calls: [],
    outage(next) {
      outage = next;
      if (next?.kind !== "slow") for (const res of held.splice(0)) res.destroy();
    },
    get: (doi) => dois.get(doi.toLowerCase()),
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };

  const document = (d: FakeDoi) => ({
    data: {
      id: d.doi,
      type: "dois",
      attributes: {
        doi: d.doi,
        state: d.state,
        url: d.url ?? null,
        xml: Buffer.from(d.xml).toString("base64"),
      },
    },
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (outage) {
      fake.refused++;
      if (outage.kind === "down") return void res.destroy();
      if (outage.kind === "slow") return void held.push(res);
      const headers: Record<string, string> =
        outage.retryAfter !== undefined ? { "retry-after": String(outage.retryAfter) } : {};
      return json(res, outage.status, errors(outage.status, { title: "Service unavailable" }), headers);
    }
    const expected = `Basic ${Buffer.from(`${repository}:${password}`).toString("base64")}`;
    if (req.headers.authorization !== expected)
      return json(res, 401, errors(401, { title: "Bad credentials." }));
    const match = /^\/dois\/(.+)$/.exec(new URL(req.url ?? "/", "http://fake").pathname);
    if (!match)
      return json(res, 404, errors(404, { title: "The resource you are looking for doesn't exist." }));
    const doi = decodeURIComponent(match[1] ?? "").toLowerCase();
    fake.calls.push({ method: req.method ?? "", doi });
    const existing = dois.get(doi);
    if (req.method === "GET") {
      if (!existing)
        return json(res, 404, errors(404, { title: "The resource you are looking for doesn't exist." }));
      return json(res, 200, document(existing));
    }
    if (req.method === "DELETE") {
      if (!existing)
        return json(res, 404, errors(404, { title: "The resource you are looking for doesn't exist." }));
      if (existing.state !== "draft")
        return json(res, 405, errors(405, { title: "This DOI can't be deleted." }));
      dois.delete(doi);
      res.writeHead(204).end();
      return;
    }
    if (req.method !== "PUT") return json(res, 405, errors(405, { title: "Method not allowed" }));
    let body: { data?: { attributes?: { doi?: string; url?: string; xml?: string; event?: string } } };
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return json(res, 400, errors(400, { title: "The request body is not JSON." }));
    }
    const attributes = body.data?.attributes ?? {};
    if (!doi.startsWith(`${prefix.toLowerCase()}/`)) {
      return json(res, 403, errors(403, { title: "You are not authorized to access this resource." }));
    }
    if (attributes.doi !== undefined && attributes.doi.toLowerCase() !== doi) {
      return json(res, 422, errors(422, { source: "doi", title: "Does not match the DOI in the URL" }));
    }
    const xml =
      attributes.xml !== undefined ? Buffer.from(attributes.xml, "base64").toString("utf8") : existing?.xml;
    if (xml === undefined) return json(res, 422, errors(422, { source: "xml", title: "Can't be blank" }));
    if (fake.rejectRecords) {
      return json(res, 422, errors(422, { source: "xml", title: "refused by the fake's own checks" }));
    }
    const lint = await lintDatacite(xml);
    if (!lint.valid) {
      return json(
        res,
        422,
        errors(
          422,
          ...lint.messages
            .split("\n")
            .filter(Boolean)
            .map((title) => ({ source: "xml", title })),
        ),
      );
    }
    const from: FakeState = existing?.state ?? "draft";
    let state = from;
    if (attributes.event) {
      const to = TRANSITIONS[attributes.event]?.[from];
      if (!to) {
        return json(
          res,
          422,
          errors(422, { source: "event", title: `Cannot ${attributes.event} a ${from} DOI` }),
        );
      }
      state = to;
    }
    const url = attributes.url ?? existing?.url;
    if (state !== "draft" && !url)
      return json(res, 422, errors(422, { source: "url", title: "Can't be blank" }));
    const record: FakeDoi = {
      doi,
      state,
      ...(url ? { url } : {}),
      xml,
      puts: (existing?.puts ?? 0) + 1,
      events: [...(existing?.events ?? []), ...(attributes.event ? [attributes.event] : [])],
    };
    dois.set(doi, record);
    return json(res, existing ? 200 : 201, document(record));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => json(res, 500, errors(500, { title: String(error) })));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
