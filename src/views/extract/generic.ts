/** Any other XML: a title if one is obvious, and the document's leaf elements as (path, text) rows. */
import type { XmlElement } from "../../types/xml-parse.ts";
import { emptyModel, type MetadataModel } from "../model.ts";
import { descendants, localName, text } from "../xml-tree.ts";

/** A page shows at most this many fields of an unknown document. */
const MAX_FIELDS = 500;

export function extractGeneric(root: XmlElement, standard: string): MetadataModel {
  const model = emptyModel("xml", standard);
  model.title = descendants(root, "title").map(text).find(Boolean);
  const walk = (element: XmlElement, prefix: string) => {
    if (model.fields.length >= MAX_FIELDS) return;
    const here = prefix ? `${prefix}/${localName(element)}` : localName(element);
    if (element.children.length === 0) {
      const value = text(element);
      if (value) model.fields.push({ path: here, value });
      return;
    }
    for (const child of element.children) walk(child, here);
  };
  walk(root, "");
  return model;
}
