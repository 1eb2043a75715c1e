/**
 * oai: an OAI-PMH ListIdentifiers walk, first page to last, over BENCH_WALK_OBJECTS objects (default 1,000,000)
 * against the same walk over BENCH_WALK_BASELINE (10,000) in the same run (walks.ts). `walks` runs it with the
 * sitemap's on the same corpus.
 */
import type { SectionOptions } from "../types.ts";
import { walks } from "./walks.ts";

export const oai = (options: SectionOptions) => walks(options, { oai: true, sitemap: false });
