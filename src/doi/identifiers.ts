/**
 * The node's DOIs as DataONE identifiers: "doi:" + prefix + "/" + shoulder + suffix (the form Metacat and
 * MetacatUI use). A suffix is random: 8 characters of Crockford's base32 in two groups of four, as DataCite's own
 * auto-generated suffixes, or a UUID.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Config } from "../config/config.ts";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

function randomSuffix(): string {
  const bytes = randomBytes(8);
  const chars = [...bytes].map((b) => CROCKFORD[b & 31] as string);
  return `${chars.slice(0, 4).join("")}-${chars.slice(4).join("")}`;
}

/** A new DOI identifier under the node's prefix (the caller reserves it). */
export function mintDoi(config: Pick<Config, "doiPrefix" | "doiShoulder" | "doiSuffix">): string {
  if (!config.doiPrefix) throw new Error("DOIs are not configured (doiPrefix)");
  const suffix = config.doiSuffix === "uuid" ? randomUUID() : randomSuffix();
  return `doi:${config.doiPrefix}/${config.doiShoulder}${suffix}`;
}

/**
 * The bare DOI ("10.x/y", as DataCite names it) when `pid` is a DOI under the node's prefix; DOIs are
 * case-insensitive ("DOI names are case insensitive", DOI Handbook 2.4), so the prefix is compared so.
 */
export function nodeDoiOf(config: Pick<Config, "doiPrefix">, pid: string): string | undefined {
  if (!config.doiPrefix) return undefined;
  const match = /^doi:(10\.\d+)\/(\S+)$/i.exec(pid);
  if (!match || match[1]?.toLowerCase() !== config.doiPrefix.toLowerCase()) return undefined;
  return `${match[1]}/${match[2]}`;
}

/** The landing page a DOI resolves to: the configured template, else the node's own default view. */
export function landingPageOf(config: Pick<Config, "doiLandingPage" | "baseUrl">, pid: string): string {
  const encoded = encodeURIComponent(pid);
  return config.doiLandingPage
    ? config.doiLandingPage.replaceAll("{pid}", encoded)
    : `${config.baseUrl}/v2/views/default/${encoded}`;
}
