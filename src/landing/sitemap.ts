/**
 * The node's sitemap (sitemaps.org protocol 0.9): /sitemap.xml is a sitemap index of files of at most
 * `sitemapFileUrls` URLs ("no more than 50,000 URLs"), each listing the landing pages of public, current metadata
 * objects with their dateSysMetadataModified as lastmod. Files are runs of the pid order, named by the pid before
 * them; both the index and each file are written as their rows are read, a page at a time (keyset on pid).
 */
import { pipeline, Readable, type Transform } from "node:stream";
import { SitemapIndexStream, SitemapStream } from "sitemap";
import { sitemapRows, sitemapSpan } from "../db/sitemap-rows.ts";
import type { Database } from "../db/types.ts";
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

async function* indexEntries(options: SitemapOptions) {
  const { db, formatIds } = options;
  let after: string | undefined;
  for (;;) {
    const span = await sitemapSpan(db, formatIds, after, objectsIn(options, after));
    yield {
      url: options.fileUrl(after),
      ...(span.modified !== undefined ? { lastmod: new Date(span.modified).toISOString() } : {}),
    };
    if (span.count < objectsIn(options, after) || span.last === undefined) return;
    after = span.last;
  }
}

async function* fileEntries(options: SitemapOptions, after: string | undefined) {
  const { db, formatIds, urls } = options;
  if (after === undefined) yield { url: `${urls.base}/` };
  let left = objectsIn(options, after);
  let position = after;
  while (left > 0) {
    const rows = await sitemapRows(db, formatIds, position, Math.min(PAGE, left));
    for (const row of rows)
      yield { url: urls.landing(row.pid), lastmod: new Date(row.modified).toISOString() };
    if (rows.length < Math.min(PAGE, left)) return;
    left -= rows.length;
    position = rows[rows.length - 1]?.pid;
  }
}

export function sitemapIndexXml(options: SitemapOptions): Readable {
  return written(indexEntries(options), new SitemapIndexStream());
}

export function sitemapFileXml(options: SitemapOptions, after: string | undefined): Readable {
  const xmlns = { news: false, video: false, image: false, xhtml: false };
  return written(fileEntries(options, after), new SitemapStream({ xmlns }));
}

/** `entries` through `writer`; a failed read destroys the output with its error (the response is cut short). */
function written(entries: AsyncIterable<unknown>, writer: Transform): Readable {
  pipeline(Readable.from(entries), writer, () => {});
  return writer;
}
