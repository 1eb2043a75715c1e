/**
 * The OAI-PMH response document (section 3.2): responseDate, the request echoed, then the verb's element or
 * the errors. Identifiers are the objects' PIDs; datestamps have seconds granularity.
 */
import { attr, escapeText, XML_DECLARATION } from "../types/xml.ts";
import { formatOaiDate } from "./dates.ts";
import type { OaiError } from "./errors.ts";
import type { OaiArguments, Verb } from "./request.ts";

export const OAI_NAMESPACE = "http://www.openarchives.org/OAI/2.0/";
const OPEN =
  `<OAI-PMH xmlns="${OAI_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
  `xsi:schemaLocation="${OAI_NAMESPACE} http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">`;

export interface Echo {
  baseUrl: string;
  /** Absent for badVerb and badArgument: then the base URL only. */
  verb?: Verb;
  args?: OaiArguments;
}

function requestElement({ baseUrl, verb, args = {} }: Echo): string {
  const attributes =
    verb === undefined
      ? ""
      : attr("verb", verb) +
        attr(
          "identifier",
          args.identifier !== undefined && uriLike(args.identifier) ? args.identifier : undefined,
        ) +
        attr("metadataPrefix", args.metadataPrefix) +
        attr("from", args.from) +
        attr("until", args.until) +
        attr("set", args.set) +
        attr("resumptionToken", args.resumptionToken);
  return `<request${attributes}>${escapeText(baseUrl)}</request>`;
}

/** Whether a value passes as the schema's anyURI (no stray "%", one "#" at most); otherwise it is not echoed. */
function uriLike(value: string): boolean {
  return !/%(?![0-9A-Fa-f]{2})/.test(value) && value.split("#").length <= 2;
}

export function oaiDocument(now: number, echo: Echo, body: string): string {
  return `${XML_DECLARATION}${OPEN}<responseDate>${formatOaiDate(now)}</responseDate>${requestElement(echo)}${body}</OAI-PMH>`;
}

export function errorBody(errors: readonly OaiError[]): string {
  return errors
    .map((error) => `<error${attr("code", error.code)}>${escapeText(error.message)}</error>`)
    .join("");
}

export interface HeaderFields {
  identifier: string;
  datestamp: number;
  deleted: boolean;
  setSpecs: readonly string[];
}

export function headerXml(header: HeaderFields): string {
  const sets = header.setSpecs.map((spec) => `<setSpec>${escapeText(spec)}</setSpec>`).join("");
  return `<header${header.deleted ? ' status="deleted"' : ""}><identifier>${escapeText(header.identifier)}</identifier><datestamp>${formatOaiDate(header.datestamp)}</datestamp>${sets}</header>`;
}

/** A record: its header, and its metadata unless deleted. */
export function recordXml(header: HeaderFields, metadata: string | undefined): string {
  return `<record>${headerXml(header)}${metadata === undefined ? "" : `<metadata>${metadata}</metadata>`}</record>`;
}

export interface TokenFields {
  token?: string;
  expires?: number;
  completeListSize?: number;
  cursor: number;
}

/** The resumptionToken element; an empty one ends a list that took more than one response. */
export function resumptionTokenXml(fields: TokenFields): string {
  const attributes =
    (fields.token !== undefined && fields.expires !== undefined
      ? attr("expirationDate", formatOaiDate(fields.expires))
      : "") +
    attr("completeListSize", fields.completeListSize) +
    attr("cursor", fields.cursor);
  return `<resumptionToken${attributes}>${escapeText(fields.token ?? "")}</resumptionToken>`;
}
