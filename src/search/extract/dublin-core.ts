/**
 * Dublin Core (oai_dc, DataONE's onedcx, dcterms), after dataone-indexer's application-context-dc-base.xml:
 * elements found by local name anywhere in the document; a dcterms Box gives the bounding box.
 */
import type { XmlElement } from "../../types/xml-parse.ts";
import { readLenientDate } from "../schema/dates.ts";
import { DocumentBuilder, type SearchDocument } from "../schema/document.ts";
import { addBoxes, type Box, readBox } from "./geo.ts";
import { attribute, descendants, textOf } from "./xml-tree.ts";

export function extractDublinCore(root: XmlElement): SearchDocument {
  const doc = new DocumentBuilder();
  const all = (name: string) => descendants(root, name).map(textOf).filter(Boolean);
  const creators = all("creator");
  const isType = (el: XmlElement, type: string) => (attribute(el, "type") ?? "").replace(/^.*:/, "") === type;
  doc
    .add("title", all("title")[0])
    .add("abstract", all("abstract")[0] ?? all("description")[0])
    .add("author", creators[0])
    .add("authorSurName", creators[0])
    .add("authorSurNameSort", creators[0])
    .add("origin", ...creators)
    .add("investigator", ...creators)
    .add("contactOrganization", ...creators)
    .add("keywords", ...all("subject"))
    .add("pubDate", ...[...all("dateSubmitted"), ...all("date")].slice(0, 1).map(readLenientDate))
    .add(
      "site",
      ...descendants(root, "spatial")
        .filter((el) => !isType(el, "Box"))
        .map(textOf),
    )
    .add("text", textOf(root));
  const period = descendants(root, "temporal").find((el) => isType(el, "Period"));
  if (period) {
    const parts = dcmiParts(textOf(period));
    doc.add("beginDate", parts.start ? readLenientDate(parts.start) : undefined);
    doc.add("endDate", parts.end ? readLenientDate(parts.end) : undefined);
  }
  const boxes = descendants(root, "spatial")
    .filter((el) => isType(el, "Box"))
    .map((el) => {
      const p = dcmiParts(textOf(el));
      return readBox(p.northlimit, p.southlimit, p.eastlimit, p.westlimit);
    })
    .filter((b): b is Box => b !== undefined);
  addBoxes(doc, boxes);
  return doc.fields;
}

/** DCMI encoded values: "name=value; name=value". */
function dcmiParts(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of text.split(";")) {
    const at = piece.indexOf("=");
    if (at > 0) out[piece.slice(0, at).trim()] = piece.slice(at + 1).trim();
  }
  return out;
}
