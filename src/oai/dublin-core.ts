/**
 * The oai_dc crosswalk: unqualified Dublin Core of an object, from its science metadata as the view extractors
 * read it (EML, ISO 19139, FGDC, Dublin Core) and from its system metadata. Every object has a record ("each
 * item must support oai_dc", section 3.4): a data object or a resource map gets one from system metadata alone.
 */
import type { StoredObject } from "../types/stored-object.ts";
import { escapeText } from "../types/xml.ts";
import type { MetadataModel } from "../views/model.ts";

export const OAI_DC_NAMESPACE = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd";
const DC_NAMESPACE = "http://purl.org/dc/elements/1.1/";

/** DCMI Type Vocabulary terms by DataONE format type. */
const DCMI_TYPE = { DATA: "Dataset", METADATA: "Text", RESOURCE: "Collection" } as const;

export interface DublinCoreInput {
  object: StoredObject;
  formatType: keyof typeof DCMI_TYPE;
  /** What the science metadata says (metadata objects whose document could be read). */
  model?: MetadataModel;
}

export function dublinCore({ object, formatType, model }: DublinCoreInput): string {
  const { sysmeta } = object;
  const elements: [string, string][] = [];
  const add = (name: string, values: readonly (string | undefined)[]) => {
    for (const value of values) {
      const trimmed = value?.trim();
      if (trimmed) elements.push([name, trimmed]);
    }
  };
  add("title", [model?.title ?? sysmeta.fileName ?? sysmeta.identifier]);
  add("creator", model?.creators ?? []);
  add("subject", model?.keywords ?? []);
  add("description", model ? [model.abstract.join("\n\n")] : []);
  add("date", [model?.published ?? sysmeta.dateUploaded?.toISOString().slice(0, 10)]);
  // The science metadata describes a dataset; the record of the document itself is Text.
  add("type", [model ? "Dataset" : DCMI_TYPE[formatType]]);
  add("format", [sysmeta.mediaType?.name ?? sysmeta.formatId]);
  add("identifier", [sysmeta.identifier, sysmeta.seriesId]);
  if (model) {
    add("coverage", model.coverage.temporal);
    add("coverage", model.coverage.places);
    add(
      "coverage",
      model.coverage.boxes.map(
        (box) =>
          `${box.description ? `${box.description}: ` : ""}north=${box.north}; south=${box.south}; east=${box.east}; west=${box.west}`,
      ),
    );
  }
  add("relation", [sysmeta.obsoletes, sysmeta.obsoletedBy]);
  const body = elements.map(([name, value]) => `<dc:${name}>${escapeText(value)}</dc:${name}>`).join("");
  return `<oai_dc:dc xmlns:oai_dc="${OAI_DC_NAMESPACE}" xmlns:dc="${DC_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="${OAI_DC_NAMESPACE} ${OAI_DC_SCHEMA}">${body}</oai_dc:dc>`;
}
