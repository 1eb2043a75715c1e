/** Dublin Core (simple, qualified, oai_dc, DataONE's onedcx): dc:title, dc:creator, dc:description, ... */
import type { XmlElement } from "../../types/xml-parse.ts";
import { emptyModel, type MetadataModel } from "../model.ts";
import { descendants, text } from "../xml-tree.ts";

export function extractDublinCore(root: XmlElement, standard: string): MetadataModel {
  const model = emptyModel("dublin-core", standard);
  const all = (name: string) => descendants(root, name).map(text).filter(Boolean);
  model.title = all("title")[0];
  model.published = all("issued")[0] ?? all("date")[0];
  model.creators = all("creator");
  model.abstract = [...all("description"), ...all("abstract")];
  model.keywords = all("subject");
  model.coverage.temporal = [...all("temporal"), ...all("date").slice(0, 1)];
  model.coverage.places = [...all("spatial"), ...all("coverage")];
  for (const url of all("identifier").filter((id) => /^https?:/i.test(id)))
    model.entities.push({ name: url, url });
  return model;
}
