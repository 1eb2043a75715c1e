/**
 * The metadata formats this repository disseminates (OAI-PMH section 3.4): oai_dc for every record,
 * oai_datacite for science metadata whose PID is a DOI (the record src/doi sends DataCite), and the science
 * metadata as stored for the standards with an XML namespace: EML 2.x and ISO 19139.
 */
import type { FormatCondition } from "../db/oai-records.ts";
import { doiOf } from "../doi/datacite/index.ts";
import type { FormatRegistry } from "../types/format-registry.ts";
import type { StoredObject } from "../types/stored-object.ts";
import type { MetadataModel } from "../views/model.ts";
import { dublinCore, OAI_DC_NAMESPACE, OAI_DC_SCHEMA } from "./dublin-core.ts";
import { embeddable } from "./embedded-xml.ts";
import { type FormatType, formatTypeOf, idsOfType } from "./sets.ts";

/** What a format renders a record from. */
export interface RecordInput {
  object: StoredObject;
  formatType: FormatType;
  /** The science metadata document as stored (metadata objects only). */
  bytes(): Promise<Buffer>;
  /** What the view extractors read from it (metadata objects only; undefined when unreadable). */
  model(): Promise<MetadataModel | undefined>;
  /** Its DataCite kernel-4.6 record (src/doi), for an object whose identifier is a DOI; else undefined. */
  datacite(): Promise<string | undefined>;
}

export interface MetadataFormat {
  prefix: string;
  schema: string;
  namespace: string;
  /** The formatIds of the objects it disseminates, as list conditions. */
  conditions: FormatCondition[];
  /** Whether the item `pid` of `formatId` is disseminated in this format. */
  accepts(formatId: string, pid: string): boolean;
  /** The `<metadata>` element's content, or undefined when this object's record cannot be made. */
  render(input: RecordInput): Promise<string | undefined>;
}

interface NativeFormat {
  prefix: string;
  schema: string;
  namespace: string;
  formatIds: string[];
}

/** Science metadata standards disseminated as stored: their namespace is the document root's. */
function nativeFormats(registry: FormatRegistry): NativeFormat[] {
  const ids = idsOfType(registry, "METADATA");
  const eml = ids.flatMap((formatId): NativeFormat[] => {
    const version =
      /^(?:eml:\/\/ecoinformatics\.org|https:\/\/eml\.ecoinformatics\.org)\/eml-(\d+\.\d+\.\d+)$/.exec(
        formatId,
      )?.[1];
    if (version === undefined) return [];
    return [
      {
        prefix: `eml-${version}`,
        schema: `https://eml.ecoinformatics.org/eml-${version}/eml.xsd`,
        namespace: formatId,
        formatIds: [formatId],
      },
    ];
  });
  const iso = ids.filter((id) => id.startsWith("http://www.isotc211.org/2005/gmd"));
  return [
    ...eml,
    ...(iso.length > 0
      ? [
          {
            prefix: "iso19139",
            schema: "http://www.isotc211.org/2005/gmd/gmd.xsd",
            namespace: "http://www.isotc211.org/2005/gmd",
            formatIds: iso,
          },
        ]
      : []),
  ];
}

function native(format: NativeFormat): MetadataFormat {
  const ids = new Set(format.formatIds);
  return {
    ...format,
    conditions: [{ in: format.formatIds }],
    accepts: (formatId) => ids.has(formatId),
    render: async (input) => embeddable(await input.bytes()),
  };
}

const oaiDc: MetadataFormat = {
  prefix: "oai_dc",
  schema: OAI_DC_SCHEMA,
  namespace: OAI_DC_NAMESPACE,
  conditions: [],
  accepts: () => true,
  render: async (input) =>
    dublinCore({
      object: input.object,
      formatType: input.formatType,
      ...(input.formatType === "METADATA" ? { model: await input.model() } : {}),
    }),
};

/** oai_datacite: the DataCite record of a science metadata object whose PID is a DOI (one the node minted or took). */
function oaiDataCite(registry: FormatRegistry): MetadataFormat {
  return {
    prefix: "oai_datacite",
    schema: "http://schema.datacite.org/meta/kernel-4.6/metadata.xsd",
    namespace: "http://datacite.org/schema/kernel-4",
    conditions: [{ in: idsOfType(registry, "METADATA") }],
    accepts: (formatId, pid) => formatTypeOf(registry, formatId) === "METADATA" && doiOf(pid) !== undefined,
    render: async (input) => {
      const document = await input.datacite();
      return document === undefined ? undefined : embeddable(Buffer.from(document, "utf8"));
    },
  };
}

/** Every format, in the order ListMetadataFormats names them. */
export function metadataFormats(registry: FormatRegistry): MetadataFormat[] {
  return [oaiDc, oaiDataCite(registry), ...nativeFormats(registry).map(native)];
}

export function metadataFormat(registry: FormatRegistry, prefix: string): MetadataFormat | undefined {
  return metadataFormats(registry).find((format) => format.prefix === prefix);
}
