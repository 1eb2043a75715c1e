/**
 * DataCite's REST API (https://support.datacite.org/reference): JSON:API documents, HTTP Basic auth with the
 * repository ID and password. `PUT /dois/{doi}` creates or updates ("upsert") a DOI; its `event` publish,
 * register or hide moves it between the states draft, registered and findable; `DELETE /dois/{doi}` removes a
 * draft only.
 */
import { readFileSync } from "node:fs";
import type { Config } from "../config/config.ts";

export type DoiState = "draft" | "registered" | "findable";
export type DoiEvent = "publish" | "register" | "hide";

/** DataCite refused the record or the request (4xx other than 429): sending it again would not help. */
export class DataciteRejected extends Error {
  constructor(
    readonly status: number,
    readonly errors: { title: string; source?: string }[],
  ) {
    super(
      `DataCite answered ${status}: ${errors.map((e) => (e.source ? `${e.source}: ${e.title}` : e.title)).join("; ") || "no reason given"}`,
    );
  }
}

/** DataCite is busy (429) or failing (5xx, no answer): try again, not before `retryAt` when it said so. */
export class DataciteUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAt?: Date,
  ) {
    super(message);
  }
}

export interface DoiRecord {
  doi: string;
  state: DoiState;
  url?: string;
}

export interface DataciteClient {
  get(doi: string): Promise<DoiRecord | undefined>;
  /** Create or update the DOI with its kernel-4 XML and landing page, with an event when its state changes. */
  put(doi: string, xml: string, url: string, event?: DoiEvent): Promise<DoiRecord>;
  /** Remove a draft DOI (DataCite refuses to delete any other). */
  deleteDraft(doi: string): Promise<void>;
}

type DataciteConfig = Pick<
  Config,
  "dataciteUrl" | "dataciteRepository" | "datacitePasswordFile" | "dataciteTimeout"
>;

/** The repository account's password: the password file's first line, else D1NODE_DATACITE_PASSWORD. */
function password(config: DataciteConfig): string {
  if (config.datacitePasswordFile) {
    return (readFileSync(config.datacitePasswordFile, "utf8").split(/\r?\n/)[0] ?? "").trim();
  }
  const fromEnv = process.env.D1NODE_DATACITE_PASSWORD;
  if (!fromEnv) throw new Error("no DataCite password: set datacitePasswordFile or D1NODE_DATACITE_PASSWORD");
  return fromEnv;
}

function retryAfter(header: string | null, now: number): Date | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return new Date(now + Math.max(0, seconds) * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : new Date(date);
}

export function dataciteClient(config: DataciteConfig, now: () => number = Date.now): DataciteClient {
  const base = config.dataciteUrl;
  const authorization = () =>
    `Basic ${Buffer.from(`${config.dataciteRepository ?? ""}:${password(config)}`).toString("base64")}`;

  async function call(method: string, doi: string, body?: unknown): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${base}/dois/${doi.split("/").map(encodeURIComponent).join("/")}`, {
        method,
        headers: {
          authorization: authorization(),
          accept: "application/vnd.api+json",
          ...(body ? { "content-type": "application/vnd.api+json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(config.dataciteTimeout * 1000),
      });
    } catch (error) {
      throw new DataciteUnavailable(`DataCite did not answer ${method} ${doi}: ${(error as Error).message}`);
    }
    if (response.status === 429 || response.status >= 500) {
      await response.body?.cancel();
      throw new DataciteUnavailable(
        `DataCite answered ${response.status} to ${method} ${doi}`,
        retryAfter(response.headers.get("retry-after"), now()),
      );
    }
    return response;
  }

  async function rejected(response: Response): Promise<DataciteRejected> {
    const document = (await response.json().catch(() => ({}))) as {
      errors?: { title?: string; source?: string }[];
    };
    const errors = (document.errors ?? []).map((e) => ({
      title: String(e.title ?? ""),
      ...(e.source ? { source: String(e.source) } : {}),
    }));
    return new DataciteRejected(response.status, errors);
  }

  const recordOf = async (response: Response): Promise<DoiRecord> => {
    const document = (await response.json()) as {
      data: { id: string; attributes: { state: DoiState; url?: string } };
    };
    const { id, attributes } = document.data;
    return { doi: id, state: attributes.state, ...(attributes.url ? { url: attributes.url } : {}) };
  };

  return {
    async get(doi) {
      const response = await call("GET", doi);
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) throw await rejected(response);
      return recordOf(response);
    },
    async put(doi, xml, url, event) {
      const response = await call("PUT", doi, {
        data: {
          id: doi,
          type: "dois",
          attributes: {
            doi,
            url,
            xml: Buffer.from(xml).toString("base64"),
            ...(event ? { event } : {}),
          },
        },
      });
      if (!response.ok) throw await rejected(response);
      return recordOf(response);
    },
    async deleteDraft(doi) {
      const response = await call("DELETE", doi);
      if (response.status === 404 || response.ok) {
        await response.body?.cancel();
        return;
      }
      throw await rejected(response);
    },
  };
}
