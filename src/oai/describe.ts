/** The verbs that describe the repository: Identify, ListMetadataFormats and ListSets (sections 4.2-4.6). */
import type { NodeContext } from "../context/node-context.ts";
import { escapeText } from "../types/xml.ts";
import { formatOaiDate } from "./dates.ts";
import { OaiError } from "./errors.ts";
import { metadataFormats } from "./formats.ts";
import type { OaiArguments } from "./request.ts";
import { FORMAT_TYPES, formatTypeSetSpec, packageSetSpec } from "./sets.ts";
import { decodeToken, encodeToken, TOKEN_LIFETIME_MS } from "./tokens.ts";
import { resumptionTokenXml } from "./xml.ts";

const SETS_PAGE = 100;

export async function identify(ctx: NodeContext, baseUrl: string): Promise<string> {
  const earliest = (await ctx.db.oai.earliest()) ?? 0;
  const fields = [
    ["repositoryName", ctx.config.nodeName],
    ["baseURL", baseUrl],
    ["protocolVersion", "2.0"],
    ["adminEmail", adminEmail(ctx)],
    ["earliestDatestamp", formatOaiDate(earliest)],
    ["deletedRecord", "persistent"],
    ["granularity", "YYYY-MM-DDThh:mm:ssZ"],
  ];
  return `<Identify>${fields.map(([name, value]) => `<${name}>${escapeText(value ?? "")}</${name}>`).join("")}</Identify>`;
}

/** The configured adminEmail, else an address in the contact subject, else oai-admin@ the public host. */
function adminEmail(ctx: NodeContext): string {
  if (ctx.config.adminEmail) return ctx.config.adminEmail;
  const inSubject = /[^\s=,]+@(?:[^\s=,]+\.)+[^\s=,]+/.exec(ctx.config.contactSubject)?.[0];
  if (inSubject) return inSubject;
  const host = new URL(ctx.config.baseUrl).hostname;
  return `oai-admin@${host.includes(".") ? host : `${host}.localdomain`}`;
}

export async function listMetadataFormats(ctx: NodeContext, args: OaiArguments): Promise<string> {
  let formats = metadataFormats(ctx.formats);
  if (args.identifier !== undefined) {
    const record = await ctx.db.oai.get(args.identifier);
    if (!record) throw new OaiError("idDoesNotExist", `This repository has no item "${args.identifier}".`);
    formats = formats.filter((format) => format.accepts(record.formatId, record.pid));
    if (formats.length === 0) {
      throw new OaiError(
        "noMetadataFormats",
        `The item "${args.identifier}" is available in no metadata format.`,
      );
    }
  }
  const items = formats.map(
    (format) =>
      `<metadataFormat><metadataPrefix>${escapeText(format.prefix)}</metadataPrefix><schema>${escapeText(format.schema)}</schema><metadataNamespace>${escapeText(format.namespace)}</metadataNamespace></metadataFormat>`,
  );
  return `<ListMetadataFormats>${items.join("")}</ListMetadataFormats>`;
}

const set = (spec: string, name: string) =>
  `<set><setSpec>${escapeText(spec)}</setSpec><setName>${escapeText(name)}</setName></set>`;

/** The format-type sets, then one set per public data package (its resource map), paged by map PID. */
export async function listSets(ctx: NodeContext, args: OaiArguments, now: number): Promise<string> {
  const token =
    args.resumptionToken === undefined ? undefined : decodeToken(args.resumptionToken, "ListSets", now);
  const after = token?.kind === "ListSets" ? token.after : undefined;
  const cursor = token?.kind === "ListSets" ? token.cursor : 0;
  const fixed = token
    ? []
    : [
        set("formatType", "Objects by DataONE format type"),
        ...FORMAT_TYPES.map((type) => set(formatTypeSetSpec(type), `Objects of format type ${type}`)),
        set("package", "Objects in data packages"),
      ];
  const maps = await ctx.db.oai.maps(after, SETS_PAGE + 1);
  const page = maps.slice(0, SETS_PAGE);
  const packages = page.map((pid) => set(packageSetSpec(pid), `Data package ${pid}`));
  const sent = fixed.length + packages.length;
  let tail = "";
  if (maps.length > SETS_PAGE) {
    const expires = now + TOKEN_LIFETIME_MS;
    const next = encodeToken({
      kind: "ListSets",
      after: page.at(-1) as string,
      cursor: cursor + sent,
      expires,
    });
    tail = resumptionTokenXml({ token: next, expires, cursor });
  } else if (token) {
    tail = resumptionTokenXml({ cursor, completeListSize: cursor + sent });
  }
  return `<ListSets>${fixed.join("")}${packages.join("")}${tail}</ListSets>`;
}
