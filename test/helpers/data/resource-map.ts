/** Resource maps for tests, in the shape DataONE's libraries write them (CN resolve URIs + dcterms:identifier). */
const RESOLVE = "https://cn.dataone.org/cn/v2/resolve/";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const uri = (pid: string) => esc(RESOLVE + encodeURIComponent(pid));

/** A map aggregating `metadata` and `data`, with `metadata` documenting every data object. */
export function resourceMapXml(mapPid: string, metadata: string, data: string[]): string {
  const aggregation = `${uri(mapPid)}#aggregation`;
  const describe = (pid: string, extra: string) =>
    `<rdf:Description rdf:about="${uri(pid)}"><dcterms:identifier>${esc(pid)}</dcterms:identifier>` +
    `<ore:isAggregatedBy rdf:resource="${aggregation}"/>${extra}</rdf:Description>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ore="http://www.openarchives.org/ore/terms/"',
    ' xmlns:dcterms="http://purl.org/dc/terms/" xmlns:cito="http://purl.org/spar/cito/">',
    `<rdf:Description rdf:about="${uri(mapPid)}"><rdf:type rdf:resource="http://www.openarchives.org/ore/terms/ResourceMap"/>`,
    `<dcterms:identifier>${esc(mapPid)}</dcterms:identifier><ore:describes rdf:resource="${aggregation}"/></rdf:Description>`,
    `<rdf:Description rdf:about="${aggregation}"><rdf:type rdf:resource="http://www.openarchives.org/ore/terms/Aggregation"/>`,
    ...[metadata, ...data].map((pid) => `<ore:aggregates rdf:resource="${uri(pid)}"/>`),
    "</rdf:Description>",
    describe(metadata, data.map((pid) => `<cito:documents rdf:resource="${uri(pid)}"/>`).join("")),
    ...data.map((pid) => describe(pid, `<cito:isDocumentedBy rdf:resource="${uri(metadata)}"/>`)),
    "</rdf:RDF>",
  ].join("\n");
}

export const RESOURCE_MAP_FORMAT = "http://www.openarchives.org/ore/terms";
