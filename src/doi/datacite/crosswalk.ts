/**
 * `dataciteXmlFor`: the DataCite kernel-4.6 XML of one object, from its system metadata, the science metadata
 * that describes it and its relations on the node. Pure: the caller gathers what the node holds (src/doi/
 * records.ts does for registrations; OAI-PMH and the landing page may call it the same way).
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { doiOf } from "../../types/doi.ts";
import { isJsonLd } from "../../types/json-ld.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { parseXml, type XmlRoot } from "../../types/xml-parse.ts";
import { extractMetadata } from "../../views/extract/index.ts";
import { emitDatacite } from "./emit.ts";
import { type DescribedFields, emptyFields } from "./fields.ts";
import { fieldsFromEml } from "./from-eml.ts";
import { fieldsFromModel } from "./from-model.ts";
import { fieldsFromSchemaOrg } from "./from-schema-org.ts";
import type { DataciteRecord, RelatedIdentifier } from "./record.ts";

/** An object's neighbours on the node, by identifier (PIDs, DOIs among them as "doi:10..."). */
export interface RelatedObjects {
  /** sysmeta.obsoletes: this is its new version (IsNewVersionOf). */
  previousVersion?: string;
  /** sysmeta.obsoletedBy (IsPreviousVersionOf). */
  nextVersion?: string;
  /** Resource maps that aggregate the object (IsPartOf). */
  packages: string[];
  /** For a resource map: what it aggregates (HasPart). */
  parts: string[];
  /** For science metadata: the data it documents (Describes, the ORE's cito:documents). */
  describes: string[];
  /** For data: the science metadata that documents it (IsDescribedBy). */
  describedBy: string[];
}

export interface DataciteSource {
  /** The DOI described: "10.prefix/suffix", "doi:10...", or "https://doi.org/10...". */
  doi: string;
  sysmeta: SystemMetadata;
  /** The science metadata describing the object: its own bytes when it is metadata, else its package's. */
  metadata?: { bytes: Buffer; formatId: string; formatName?: string };
  /** Whether the object is the science metadata itself (false: data, or a resource map). */
  isMetadata: boolean;
  /** The repository (DataCite's publisher: "the entity that holds, archives, publishes"). */
  publisher: string;
  related: RelatedObjects;
  /** The URL an identifier that is not a DOI resolves at (e.g. the CN's or this node's resolve URL). */
  resolveUrl?: (pid: string) => string;
  /** The format's name (DataONE format list), shown as resourceType. */
  formatName?: string;
}

export { doiOf };

export function dataciteXmlFor(source: DataciteSource): string {
  return emitDatacite(dataciteRecordFor(source));
}

/** What a metadata document says; nothing when it cannot be read. */
export function describedFields(metadata: DataciteSource["metadata"]): DescribedFields {
  if (!metadata) return emptyFields();
  if (isJsonLd(metadata.bytes, metadata.formatId))
    return fieldsFromSchemaOrg(metadata.bytes) ?? emptyFields();
  let root: XmlRoot;
  try {
    root = parseXml(metadata.bytes, InvalidRequest);
  } catch {
    return emptyFields();
  }
  if (/eml/i.test(metadata.formatId) || root.localName === "eml") return fieldsFromEml(root);
  return fieldsFromModel(
    extractMetadata(metadata.bytes, metadata.formatId, metadata.formatName ?? metadata.formatId),
  );
}

export function dataciteRecordFor(source: DataciteSource): DataciteRecord {
  const { sysmeta } = source;
  const doi = doiOf(source.doi);
  if (!doi) throw new InvalidRequest(`"${source.doi}" is not a DOI.`);
  const fields = describedFields(source.metadata);
  const published = /^\s*(\d{4})/.exec(fields.published ?? "")?.[1];
  const uploaded = sysmeta.dateUploaded ?? new Date();
  const titles = source.isMetadata ? fields.titles : dataTitles(sysmeta, fields);
  const dates = [
    ...(fields.published && /^\d{4}(-\d{2}){0,2}$/.test(fields.published.trim())
      ? [{ date: fields.published.trim(), dateType: "Issued" }]
      : []),
    { date: uploaded.toISOString().slice(0, 10), dateType: "Submitted" },
    ...(sysmeta.dateSysMetadataModified
      ? [{ date: sysmeta.dateSysMetadataModified.toISOString().slice(0, 10), dateType: "Updated" }]
      : []),
    ...(sysmeta.archived && sysmeta.dateSysMetadataModified
      ? [
          {
            date: sysmeta.dateSysMetadataModified.toISOString().slice(0, 10),
            dateType: "Withdrawn",
            dateInformation: "archived: no longer listed in searches; its content is kept",
          },
        ]
      : []),
    ...fields.dates,
  ];
  return {
    doi,
    creators: fields.creators,
    titles: titles.length ? titles : [{ title: sysmeta.fileName ?? sysmeta.identifier }],
    publisher: { name: source.publisher },
    publicationYear: published ?? String(uploaded.getUTCFullYear()),
    resourceTypeGeneral: "Dataset",
    resourceType: source.formatName ?? sysmeta.formatId,
    subjects: fields.subjects,
    // The document's own publisher, when another than the repository, stays as a Distributor.
    contributors: fields.contributors.filter(
      (c) => !(c.contributorType === "Distributor" && c.name === source.publisher),
    ),
    dates,
    ...(fields.language ? { language: fields.language } : {}),
    alternateIdentifiers: [],
    relatedIdentifiers: relatedIdentifiers(source),
    sizes: [`${sysmeta.size} bytes`],
    formats: [sysmeta.mediaType?.name ?? sysmeta.formatId],
    rights: fields.rights,
    descriptions: fields.descriptions,
    geoLocations: fields.geoLocations,
    fundingReferences: fields.fundingReferences,
  };
}

/** A data file is titled by its name, with the dataset it belongs to. */
function dataTitles(sysmeta: SystemMetadata, fields: DescribedFields) {
  const name = sysmeta.fileName ?? sysmeta.identifier;
  const dataset = fields.titles[0]?.title;
  return [{ title: dataset ? `${name} (${dataset})` : name }];
}

function relatedIdentifiers(source: DataciteSource): RelatedIdentifier[] {
  const { related, sysmeta } = source;
  const out: RelatedIdentifier[] = [];
  const add = (id: string | undefined, relationType: string) => {
    if (!id) return;
    const doi = doiOf(id);
    if (doi) out.push({ value: doi, type: "DOI", relationType });
    else if (/^https?:\/\//i.test(id)) out.push({ value: id, type: "URL", relationType });
    else if (source.resolveUrl) out.push({ value: source.resolveUrl(id), type: "URL", relationType });
    else if (/^urn:[a-z0-9][a-z0-9-]{0,31}:\S+$/i.test(id))
      out.push({ value: id, type: "URN", relationType });
  };
  add(related.previousVersion, "IsNewVersionOf");
  add(related.nextVersion, "IsPreviousVersionOf");
  // The series: every version is a version of it (no concept DOI; docs/decisions.md).
  add(sysmeta.seriesId, "IsVersionOf");
  for (const id of related.packages) add(id, "IsPartOf");
  for (const id of related.parts) add(id, "HasPart");
  for (const id of related.describes) add(id, "Describes");
  for (const id of related.describedBy) add(id, "IsDescribedBy");
  return out;
}
