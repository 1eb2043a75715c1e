/**
 * The schema.org Dataset of a landing page, following the science-on-schema.org (SOSO) guidelines: "@vocab" is
 * http://schema.org/ (the namespace SOSO's SHACL shapes check), the Dataset's @id is its landing page, creators
 * are an ordered @list with their ORCIDs, distributions carry SPDX checksums ("spdx:checksum", SOSO's
 * Dataset.md#checksum), and versions link back along the obsolescence chain with isBasedOn.
 */
import type { MetadataDetails } from "../views/model.ts";
import type { LandingRecord } from "./record.ts";
import { downloads } from "./record.ts";
import { doiOf, orcidUrl } from "./urls.ts";

type Json = Record<string, unknown>;

const CONTEXT = { "@vocab": "http://schema.org/", spdx: "http://spdx.org/rdf/terms#" };
/** Google: "description: between 50 and 5000 characters". */
const DESCRIPTION_MIN = 50;
const DESCRIPTION_MAX = 5000;
const SPDX_ALGORITHMS: Record<string, string> = {
  MD5: "spdx:checksumAlgorithm_md5",
  "SHA-1": "spdx:checksumAlgorithm_sha1",
  "SHA-256": "spdx:checksumAlgorithm_sha256",
  "SHA-384": "spdx:checksumAlgorithm_sha384",
  "SHA-512": "spdx:checksumAlgorithm_sha512",
};

export function datasetJsonLd(record: LandingRecord): Json {
  const { model, urls, node, version } = record;
  const { sysmeta, metadata: m } = model;
  const pid = sysmeta.identifier;
  const details = m.details;
  const name = m.title ?? sysmeta.fileName ?? pid;
  const doi = doiOf(pid) ?? doiOf(sysmeta.seriesId);
  const landing = urls.landing(pid);
  const creators = (
    details?.creators ??
    m.creators.map((c): MetadataDetails["creators"][number] => ({ name: c, kind: "person" }))
  ).map((c) => ({
    ...(c.orcid ? { "@id": orcidUrl(c.orcid) } : {}),
    "@type": c.kind === "organization" ? "Organization" : "Person",
    name: c.name,
    ...(c.orcid
      ? {
          identifier: {
            "@type": "PropertyValue",
            propertyID: "https://registry.identifiers.org/registry/orcid",
            value: `orcid:${c.orcid}`,
            url: orcidUrl(c.orcid),
          },
        }
      : {}),
  }));
  const catalog = {
    "@type": "DataCatalog",
    "@id": `${urls.base}/`,
    name: node.name,
    url: `${urls.base}/`,
  };
  const license = details?.license?.url ?? details?.license?.name ?? details?.license?.text;
  // Google's recommended shape allows one sameAs: the DOI's resolver, else the series' landing page.
  const sameAs = doi
    ? `https://doi.org/${doi}`
    : sysmeta.seriesId
      ? urls.landing(sysmeta.seriesId)
      : undefined;
  const year = (m.published ?? sysmeta.dateUploaded?.toISOString())?.slice(0, 4);
  return {
    "@context": CONTEXT,
    "@type": "Dataset",
    "@id": landing,
    name,
    ...(details?.shortName ? { alternateName: details.shortName } : {}),
    description: description(record, name),
    url: landing,
    identifier: doi
      ? {
          "@type": "PropertyValue",
          propertyID: "https://registry.identifiers.org/registry/doi",
          value: `doi:${doi}`,
          url: `https://doi.org/${doi}`,
        }
      : pid,
    ...(sameAs ? { sameAs } : {}),
    ...(creators.length ? { creator: { "@list": creators } } : {}),
    citation: [
      creators.map((c) => c.name).join(", "),
      year ? `(${year})` : "",
      `${name}.`,
      `${node.name}.`,
      doi ? `https://doi.org/${doi}` : pid,
    ]
      .filter(Boolean)
      .join(" "),
    ...(m.keywords.length ? { keywords: m.keywords } : {}),
    ...(m.coverage.temporal.length ? { temporalCoverage: m.coverage.temporal.map(isoInterval) } : {}),
    ...spatial(record),
    ...(details?.variables.length
      ? {
          variableMeasured: details.variables.map((v) => ({
            "@type": "PropertyValue",
            name: v.name,
            ...(v.description ? { description: v.description } : {}),
            ...(v.unit ? { unitText: v.unit } : {}),
          })),
        }
      : {}),
    ...(license ? { license } : {}),
    isAccessibleForFree: true,
    ...(m.published ? { datePublished: m.published } : {}),
    ...(sysmeta.dateSysMetadataModified
      ? { dateModified: sysmeta.dateSysMetadataModified.toISOString() }
      : {}),
    version: String(version.number),
    ...(version.previous ? { isBasedOn: { "@id": urls.landing(version.previous) } } : {}),
    publisher: details?.publisher
      ? { "@type": "Organization", name: details.publisher }
      : { "@type": "Organization", "@id": `${urls.base}/`, name: node.name, url: `${urls.base}/` },
    provider: { "@type": "Organization", "@id": `${urls.base}/`, name: node.name },
    includedInDataCatalog: catalog,
    subjectOf: {
      "@type": "DataDownload",
      name: `${m.standard} metadata`,
      contentUrl: urls.object(pid),
      encodingFormat: [record.mediaType, sysmeta.formatId],
      ...checksum(sysmeta.checksum),
    },
    distribution: distribution(record),
  };
}

function distribution(record: LandingRecord): Json[] {
  const { urls } = record;
  const files = downloads(record).map((member) => ({
    "@type": "DataDownload",
    "@id": urls.object(member.id),
    name: member.fileName ?? member.id,
    identifier: member.id,
    contentUrl: urls.object(member.id),
    ...(member.mediaType || member.formatId ? { encodingFormat: member.mediaType ?? member.formatId } : {}),
    ...(member.size !== undefined ? { contentSize: `${member.size} B` } : {}),
    ...(member.checksum ? checksum(member.checksum) : {}),
  }));
  const bags = record.model.packages.map((p) => ({
    "@type": "DataDownload",
    "@id": urls.package(p.id),
    name: `Package ${p.id} as a BagIt zip`,
    contentUrl: urls.package(p.id),
    encodingFormat: "application/zip",
  }));
  return [...files, ...bags];
}

function checksum(sum: { algorithm: string; value: string }): Json {
  const algorithm = SPDX_ALGORITHMS[sum.algorithm.toUpperCase()];
  return algorithm
    ? {
        "spdx:checksum": {
          "@type": "spdx:Checksum",
          "spdx:algorithm": { "@id": algorithm },
          "spdx:checksumValue": sum.value,
        },
      }
    : {};
}

function spatial(record: LandingRecord): Json {
  const { boxes, places } = record.model.metadata.coverage;
  // SOSO: a box is "south west north east" in decimal degrees (schema:GeoShape box).
  const shapes = boxes.map((b) => ({
    "@type": "Place",
    ...(b.description ? { name: b.description } : {}),
    geo: { "@type": "GeoShape", box: `${b.south} ${b.west} ${b.north} ${b.east}` },
  }));
  const named = places.map((p) => ({ "@type": "Place", name: p }));
  const all = [...shapes, ...named];
  return all.length ? { spatialCoverage: all } : {};
}

/** The extractors write ranges as "begin to end" ("?" for an open end): ISO 8601 "begin/end" (".." open). */
function isoInterval(temporal: string): string {
  const range = /^(.+) to (.+)$/.exec(temporal);
  if (!range) return temporal;
  const end = (value: string | undefined) => (value === undefined || value === "?" ? ".." : value);
  return `${end(range[1])}/${end(range[2])}`;
}

function description(record: LandingRecord, name: string): string {
  const { model, node } = record;
  const given = model.metadata.abstract.join("\n\n");
  const text =
    given.length >= DESCRIPTION_MIN
      ? given
      : [
          given,
          `${name}: ${model.metadata.standard} record ${model.sysmeta.identifier} held by ${node.name}.`,
        ]
          .filter(Boolean)
          .join(" ");
  return text.length > DESCRIPTION_MAX ? `${text.slice(0, DESCRIPTION_MAX - 1)}…` : text;
}
