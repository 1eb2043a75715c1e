/**
 * sitemap: /sitemap.xml and every file of it over BENCH_WALK_OBJECTS public metadata objects (default 1,000,000)
 * against the same walk over BENCH_WALK_BASELINE (10,000) in the same run (walks.ts). `walks` runs it with the
 * OAI-PMH walk on the same corpus.
 */
import type { SectionOptions } from "../types.ts";
import { walks } from "./walks.ts";

export const sitemap = (options: SectionOptions) => walks(options, { oai: false, sitemap: true });
export const bothWalks = (options: SectionOptions) => walks(options, { oai: true, sitemap: true });
