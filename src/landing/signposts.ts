/**
 * FAIR Signposting (signposting.org/FAIR): the typed links of a landing page and of the resources around it.
 * Level 1 sends them as Link headers (RFC 8288), the repeating relations (author, item) capped; level 2 serves
 * them all as a linkset (RFC 9264), one context object per anchor.
 */
import { DATACITE_MEDIA_TYPE } from "./datacite-representation.ts";
import { downloads, type LandingRecord } from "./record.ts";
import { doiOf, orcidUrl } from "./urls.ts";

export interface Signpost {
  href: string;
  rel: string;
  type?: string;
}

/** One context of a linkset: its anchor and the links from it. */
export interface LinkContext {
  anchor: string;
  links: Signpost[];
}

export const LINKSET_JSON = "application/linkset+json";
export const LINKSET_TEXT = "application/linkset";
/** Level 1 headers carry at most this many links of each repeating relation; the linkset carries them all. */
export const MAX_HEADER_LINKS_PER_RELATION = 10;

/** The landing page's context first, then one per item (collection back) and the metadata (describes). */
export function landingLinkContexts(record: LandingRecord, options: { datacite: boolean }): LinkContext[] {
  const { model, urls } = record;
  const { sysmeta, metadata } = model;
  const pid = sysmeta.identifier;
  const landing = urls.landing(pid);
  const doi = doiOf(pid) ?? doiOf(sysmeta.seriesId);
  const items = downloads(record);
  const license = metadata.details?.license?.url;
  const links: Signpost[] = [
    { href: doi ? `https://doi.org/${doi}` : landing, rel: "cite-as" },
    { href: "https://schema.org/AboutPage", rel: "type" },
    { href: "https://schema.org/Dataset", rel: "type" },
    ...(metadata.details?.creators ?? [])
      .filter((c) => c.orcid)
      .map((c) => ({ href: orcidUrl(c.orcid as string), rel: "author" })),
    { href: urls.object(pid), rel: "describedby", type: record.mediaType },
    { href: landing, rel: "describedby", type: "application/ld+json" },
    ...(options.datacite ? [{ href: landing, rel: "describedby", type: DATACITE_MEDIA_TYPE }] : []),
    ...(license ? [{ href: license, rel: "license" }] : []),
    ...items.map((m) => ({
      href: urls.object(m.id),
      rel: "item",
      type: m.mediaType ?? "application/octet-stream",
    })),
    ...model.packages.map((p) => ({ href: urls.package(p.id), rel: "item", type: "application/zip" })),
    { href: urls.linkset(pid), rel: "linkset", type: LINKSET_JSON },
    { href: urls.linkset(pid), rel: "linkset", type: LINKSET_TEXT },
  ];
  const collection = (anchor: string, rel: string): LinkContext => ({
    anchor,
    links: [{ href: landing, rel, type: "text/html" }],
  });
  return [
    { anchor: landing, links },
    collection(urls.object(pid), "describes"),
    ...items.map((m) => collection(urls.object(m.id), "collection")),
  ];
}

/** The links an object's bytes carry (GET object): its landing page and its linkset, known from the pid alone. */
export function objectSignposts(
  urls: { landing(pid: string): string; linkset(pid: string): string },
  pid: string,
  isMetadata: boolean,
): Signpost[] {
  return [
    { href: urls.landing(pid), rel: isMetadata ? "describes" : "collection", type: "text/html" },
    { href: urls.linkset(pid), rel: "linkset", type: LINKSET_JSON },
  ];
}

/** Level 1: a Link header value, each repeating relation cut to `cap` links (RFC 8288 link-values). */
export function linkHeader(links: readonly Signpost[], cap = MAX_HEADER_LINKS_PER_RELATION): string {
  const counts = new Map<string, number>();
  const kept = links.filter((link) => {
    if (link.rel !== "author" && link.rel !== "item") return true;
    const count = (counts.get(link.rel) ?? 0) + 1;
    counts.set(link.rel, count);
    return count <= cap;
  });
  return kept.map((link) => linkValue(link)).join(", ");
}

function linkValue(link: Signpost, anchor?: string): string {
  return [
    `<${link.href}>`,
    `rel="${link.rel}"`,
    ...(link.type ? [`type="${link.type}"`] : []),
    ...(anchor ? [`anchor="${anchor}"`] : []),
  ].join("; ");
}

/** RFC 9264 section 4.2: `{"linkset": [{"anchor": ..., "<rel>": [{"href": ..., "type": ...}]}]}`. */
export function linksetJson(contexts: readonly LinkContext[]): string {
  const linkset = contexts.map(({ anchor, links }) => {
    const byRelation = new Map<string, { href: string; type?: string }[]>();
    for (const { href, rel, type } of links) {
      const targets = byRelation.get(rel) ?? [];
      targets.push({ href, ...(type ? { type } : {}) });
      byRelation.set(rel, targets);
    }
    return { anchor, ...Object.fromEntries(byRelation) };
  });
  return JSON.stringify({ linkset });
}

/** RFC 9264 section 4.1: Link header syntax, every link with its anchor, one link per line. */
export function linksetText(contexts: readonly LinkContext[]): string {
  return `${contexts.flatMap(({ anchor, links }) => links.map((link) => linkValue(link, anchor))).join(",\n")}\n`;
}
