/** What a landing page says about one object, gathered once: the JSON-LD and the signposts are made from it. */
import type { ViewModel } from "../views/model.ts";
import type { LandingUrls } from "./urls.ts";

export interface LandingRecord {
  model: ViewModel;
  /** The object's place in its obsolescence chain: 1 for the first version. */
  version: { number: number; previous?: string; next?: string };
  node: { id: string; name: string; description: string };
  urls: LandingUrls;
  /** The media type the object's own bytes are served with (EML: its format's, e.g. text/xml). */
  mediaType: string;
  /** Whether the object is public (anyone may read it). */
  isPublic: boolean;
}

/** The package members a landing page offers for download: all but the object itself and the package maps. */
export function downloads(record: LandingRecord): ViewModel["packages"][number]["members"] {
  const self = record.model.sysmeta.identifier;
  const maps = new Set(record.model.packages.map((p) => p.id));
  const seen = new Set<string>();
  return record.model.packages
    .flatMap((p) => p.members)
    .filter((m) => m.id !== self && !maps.has(m.id) && !seen.has(m.id) && seen.add(m.id));
}
