/**
 * The node's sitemap (sitemaps.org protocol 0.9): /sitemap.xml is a sitemap index of files of at most
 * `sitemapFileUrls` URLs ("no more than 50,000 URLs"), each listing the landing pages of public, current metadata
 * objects with their dateSysMetadataModified as lastmod. Files are runs of the pid order, named by the pid before
 * them; both the index and each file are written as their rows are read, a page at a time (keyset on pid).
 * The XML is written here, a page per chunk: the protocol's two elements need no more than escaping.
 */
import { Readable } from "node:stream";
import { sitemapRows, sitemapSpan } from "../db/sitemap-rows.ts";
import type { Database } from "../db/types.ts";
import { escapeText } from "../types/xml.ts";
import type { LandingUrls } from "./urls.ts";

/** Rows read from the database at a time while a file is written. */
const PAGE = 1000;

export interface SitemapOptions {
  db: Database;
  urls: LandingUrls;
  /** The formats whose objects are listed (the METADATA formats). */
  formatIds: readonly string[];
  fileUrls: number;
  /** The index's URL for a file: the first file has no `after`. */
  fileUrl(after: string | undefined): string;
}

/** The first file also lists the node's home page, so no file is ever empty (a urlset needs one url). */
const objectsIn = (options: SitemapOptions, after: string | undefined) =>
  after === undefined ? options.fileUrls - 1 : options.fileUrls;

const XMLNS = "http://www.sitemaps.org/schemas/sitemap/0.9";
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

function entry(element: "url" | "sitemap", loc: string, lastmod: number | undefined): string {
  const modified = lastmod === undefined ? "" : `<lastmod>${new Date(lastmod).toISOString()}</lastmod>`;
  return `<${element}><loc>${escapeText(loc)}</loc>${modified}</${element}>\n`;
}

async function* indexXml(options: SitemapOptions) {
  const { db, formatIds } = options;
  yield `${HEAD}<sitemapindex xmlns="${XMLNS}">\n`;
  let after: string | undefined;
  for (;;) {
    const span = await sitemapSpan(db, formatIds, after, objectsIn(options, after));
    yield entry("sitemap", options.fileUrl(after), span.modified);
    if (span.count < objectsIn(options, after) || span.last === undefined) break;
    after = span.last;
  }
  yield "</sitemapindex>\n";
}

async function* fileXml(options: SitemapOptions, after: string | undefined) {
  const { db, formatIds, urls } = options;
  yield `${HEAD}<urlset xmlns="${XMLNS}">\n`;
  if (after === undefined) yield entry("url", `${urls.base}/`, undefined);
  let left = objectsIn(options, after);
  let position = after;
  while (left > 0) {
    const rows = await sitemapRows(db, formatIds, position, Math.min(PAGE, left));
    yield rows.map((row) => entry("url", urls.landing(row.pid), row.modified)).join("");
    if (rows.length < Math.min(PAGE, left)) break;
    left -= rows.length;
    position = rows[rows.length - 1]?.pid;
  }
  yield "</urlset>\n";
}

/** A failed read destroys the stream with its error (the response is cut short). */
export function sitemapIndexXml(options: SitemapOptions): Readable {
  return Readable.from(indexXml(options), { objectMode: false });
}

export function sitemapFileXml(options: SitemapOptions, after: string | undefined): Readable {
  return Readable.from(fileXml(options, after), { objectMode: false });
}
