/**
 * A DataONE resource map as RDF/XML, in the shape DataONE's libraries write it: every object named by its
 * resolve URI (`{resolveBase}/{URL-encoded pid}`) with its `dcterms:identifier`, the aggregation at the map's
 * URI + "#aggregation", and cito:documents / cito:isDocumentedBy between metadata and data.
 */
import { escapeAttr, escapeText, XML_DECLARATION } from "../types/xml.ts";
import type { Documents } from "./types.ts";

export interface ResourceMapContent {
  id: string;
  members: readonly string[];
  documents: readonly Documents[];
}

export function resourceMapXml(map: ResourceMapContent, resolveBase: string): string {
  const uri = (pid: string) => escapeAttr(`${resolveBase}/${encodeURIComponent(pid)}`);
  const aggregation = `${uri(map.id)}#aggregation`;
  const documents = (pid: string) =>
    map.documents
      .filter((d) => d.metadata === pid)
      .map((d) => `<cito:documents rdf:resource="${uri(d.data)}"/>`)
      .join("");
  const documentedBy = (pid: string) =>
    map.documents
      .filter((d) => d.data === pid)
      .map((d) => `<cito:isDocumentedBy rdf:resource="${uri(d.metadata)}"/>`)
      .join("");
  return [
    XML_DECLARATION,
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ore="http://www.openarchives.org/ore/terms/"' +
      ' xmlns:dcterms="http://purl.org/dc/terms/" xmlns:cito="http://purl.org/spar/cito/">',
    `<rdf:Description rdf:about="${uri(map.id)}"><rdf:type rdf:resource="http://www.openarchives.org/ore/terms/ResourceMap"/>` +
      `<dcterms:identifier>${escapeText(map.id)}</dcterms:identifier><ore:describes rdf:resource="${aggregation}"/></rdf:Description>`,
    `<rdf:Description rdf:about="${aggregation}"><rdf:type rdf:resource="http://www.openarchives.org/ore/terms/Aggregation"/>` +
      `<ore:isDescribedBy rdf:resource="${uri(map.id)}"/>`,
    ...map.members.map((pid) => `<ore:aggregates rdf:resource="${uri(pid)}"/>`),
    "</rdf:Description>",
    ...map.members.map(
      (pid) =>
        `<rdf:Description rdf:about="${uri(pid)}"><dcterms:identifier>${escapeText(pid)}</dcterms:identifier>` +
        `<ore:isAggregatedBy rdf:resource="${aggregation}"/>${documents(pid)}${documentedBy(pid)}</rdf:Description>`,
    ),
    "</rdf:RDF>",
    "",
  ].join("\n");
}
