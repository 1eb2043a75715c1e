/** The RDF terms a DataONE resource map uses (OAI-ORE, CiTO, Dublin Core terms). */
const ORE = "http://www.openarchives.org/ore/terms/";
const CITO = "http://purl.org/spar/cito/";

export const TERMS = {
  type: "http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
  identifier: "http://purl.org/dc/terms/identifier",
  ResourceMap: `${ORE}ResourceMap`,
  Aggregation: `${ORE}Aggregation`,
  describes: `${ORE}describes`,
  isDescribedBy: `${ORE}isDescribedBy`,
  aggregates: `${ORE}aggregates`,
  isAggregatedBy: `${ORE}isAggregatedBy`,
  documents: `${CITO}documents`,
  isDocumentedBy: `${CITO}isDocumentedBy`,
} as const;
