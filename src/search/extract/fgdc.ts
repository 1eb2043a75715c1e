/**
 * FGDC CSDGM (FGDC-STD-001-1998 and profiles), after dataone-indexer's application-context-fgdc-base.xml:
 * paths under the root <metadata>/idinfo.
 */
import type { XmlElement } from "../../types/xml-parse.ts";
import { readLenientDate } from "../schema/dates.ts";
import { DocumentBuilder, type SearchDocument } from "../schema/document.ts";
import { addBoxes, type Box, readBox } from "./geo.ts";
import { descendants, firstText, select, textOf, texts } from "./xml-tree.ts";

export function extractFgdc(root: XmlElement): SearchDocument {
  const doc = new DocumentBuilder();
  const idinfo = select(root, "idinfo")[0];
  const cite = select(idinfo, "citation/citeinfo")[0];
  const origins = texts(cite, "origin");
  const themes = select(idinfo, "keywords/theme");
  doc
    .add("title", firstText(cite, "title"))
    .add("abstract", textOf(select(idinfo, "descript/abstract")[0]))
    .add("purpose", textOf(select(idinfo, "descript/purpose")[0]))
    .add("project", textOf(select(idinfo, "descript/purpose")[0]))
    .add("edition", firstText(cite, "edition"))
    .add("geoform", firstText(cite, "geoform"))
    .add("presentationCat", firstText(cite, "geoform"))
    .add("webUrl", ...texts(cite, "onlink"))
    .add("origin", ...origins)
    .add("author", origins[0])
    .add("authorSurName", origins[0])
    .add("authorSurNameSort", origins[0])
    .add("investigator", ...origins)
    .add("pubDate", readDate(firstText(cite, "pubdate")))
    .add("beginDate", readDate(firstText(idinfo, "timeperd/timeinfo/rngdates/begdate")))
    .add("endDate", readDate(firstText(idinfo, "timeperd/timeinfo/rngdates/enddate")))
    .add(
      "keywords",
      ...themes.flatMap((t) => texts(t, "themekey")),
      ...texts(idinfo, "keywords/place/placekey"),
    )
    .add("placeKey", ...texts(idinfo, "keywords/place/placekey"))
    .add(
      "gcmdKeyword",
      ...themes
        .filter((t) => firstText(t, "themekt") === "GCMD Science Keywords")
        .flatMap((t) => texts(t, "themekey")),
    )
    .add("site", ...texts(idinfo, "spdom/descgeog"))
    .add(
      "contactOrganization",
      ...texts(root, "distinfo/distrib/cntinfo/cntperp/cntorg"),
      ...texts(root, "distinfo/distrib/cntinfo/cntorgp/cntorg"),
    )
    .add("attributeName", ...descendants(root, "attrlabl").map(textOf))
    .add("text", textOf(root));
  const boxes = select(idinfo, "spdom/bounding")
    .map((b) =>
      readBox(
        firstText(b, "northbc"),
        firstText(b, "southbc"),
        firstText(b, "eastbc"),
        firstText(b, "westbc"),
      ),
    )
    .filter((b): b is Box => b !== undefined);
  addBoxes(doc, boxes);
  for (const node of descendants(idinfo, "taxoncl")) {
    const rank = firstText(node, "taxonrn")?.toLowerCase();
    const value = firstText(node, "taxonrv");
    if (
      rank &&
      value &&
      ["kingdom", "phylum", "class", "order", "family", "genus", "species"].includes(rank)
    ) {
      doc.add(rank, value);
    }
  }
  return doc.fields;
}

/** FGDC dates are YYYYMMDD, YYYYMM or YYYY (or "Unknown"). */
function readDate(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^(\d{4})(\d{2})?(\d{2})?$/.exec(text.trim());
  if (m) return readLenientDate([m[1], m[2], m[3]].filter(Boolean).join("-"));
  return readLenientDate(text);
}
