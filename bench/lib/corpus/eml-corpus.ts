/**
 * Synthetic EML 2.1.1 documents for the search benchmarks: titles, abstracts, creators, keywords, a bounding
 * box, a date range, taxa and data-table attributes drawn from small vocabularies by a seeded generator, so
 * every run indexes the same corpus and facets have realistic value spreads.
 */
const WORDS = (
  "soil water carbon nitrogen forest stream lake ocean temperature salinity precipitation vegetation survey " +
  "census biomass phytoplankton zooplankton sediment nutrient chlorophyll grassland wetland tundra coral reef " +
  "fish bird mammal insect plant growth mortality recruitment flux respiration productivity drought fire " +
  "snow ice glacier river estuary coastal marine alpine desert savanna urban agriculture climate model"
).split(" ");
/** The words keywords are made of ("w1 w2"). */
export const KEYWORD_WORDS = WORDS;
export const KEYWORDS = Array.from(
  { length: 400 },
  (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]}`,
);
export const SURNAMES = Array.from({ length: 300 }, (_, i) => `Author${i}`);
export const GIVEN = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jo"];
export const ORGS = ["NCEAS", "LTER", "USGS", "NOAA", "NEON", "KNB", "Arctic Data Center", "EDI"];
export const GENERA = [
  "Quercus",
  "Pinus",
  "Salmo",
  "Canis",
  "Ursus",
  "Daphnia",
  "Acer",
  "Larix",
  "Picea",
  "Betula",
];
export const SPECIES = [
  "alba",
  "rubra",
  "trutta",
  "lupus",
  "arctos",
  "magna",
  "saccharum",
  "sibirica",
  "glauca",
  "nana",
];

/** Deterministic PRNG (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: () => number, list: readonly T[]): T =>
  list[Math.floor(rand() * list.length)] as T;

/**
 * Site descriptions (`site`, from geographicDescription) come from a pool, as real holdings repeat them across
 * the datasets of one study area: BENCH_SEARCH_SITE_POOL names (default 100,000), drawn with a skew (the square
 * of a uniform draw: the first tenth of the pool takes about a third of the documents). 0 gives every document a
 * site of its own (five random words: the spread of the earlier figures).
 */
const SITE_POOL = Number(process.env.BENCH_SEARCH_SITE_POOL ?? 100_000);

export function siteOf(rand: () => number): string {
  if (SITE_POOL <= 0) return Array.from({ length: 5 }, () => pick(rand, WORDS)).join(" ");
  const i = Math.floor(SITE_POOL * rand() ** 2);
  return `${WORDS[i % WORDS.length]} ${WORDS[Math.floor(i / WORDS.length) % WORDS.length]} site ${i}`;
}
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");

export function emlDocument(n: number): string {
  const rand = random(n + 1);
  const words = (count: number) => Array.from({ length: count }, () => pick(rand, WORDS)).join(" ");
  const creators = Array.from(
    { length: 1 + Math.floor(rand() * 3) },
    () =>
      `<creator><individualName><givenName>${pick(rand, GIVEN)}</givenName><surName>${pick(rand, SURNAMES)}</surName></individualName></creator>`,
  ).join("");
  const keywords = Array.from(
    { length: 3 + Math.floor(rand() * 5) },
    () => `<keyword>${esc(pick(rand, KEYWORDS))}</keyword>`,
  ).join("");
  const south = -60 + rand() * 120;
  const west = -170 + rand() * 330;
  const year = 1970 + Math.floor(rand() * 50);
  const genus = pick(rand, GENERA);
  const attributes = Array.from(
    { length: 3 + Math.floor(rand() * 6) },
    (_, i) =>
      `<attribute><attributeName>${pick(rand, WORDS)}_${i}</attributeName><attributeDefinition>${words(6)}</attributeDefinition>` +
      "<measurementScale><ratio><unit><standardUnit>meter</standardUnit></unit></ratio></measurementScale></attribute>",
  ).join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="bench.${n}.1" system="bench">
<dataset><title>${esc(`${words(8)} ${n}`)}</title>${creators}
<creator><organizationName>${pick(rand, ORGS)}</organizationName></creator>
<pubDate>${year + 1}</pubDate>
<abstract><para>${words(60)}</para><para>${words(40)}</para></abstract>
<keywordSet>${keywords}</keywordSet>
<coverage><geographicCoverage><geographicDescription>${esc(siteOf(rand))}</geographicDescription><boundingCoordinates>
<westBoundingCoordinate>${west.toFixed(4)}</westBoundingCoordinate><eastBoundingCoordinate>${(west + rand() * 10).toFixed(4)}</eastBoundingCoordinate>
<northBoundingCoordinate>${(south + rand() * 10).toFixed(4)}</northBoundingCoordinate><southBoundingCoordinate>${south.toFixed(4)}</southBoundingCoordinate>
</boundingCoordinates></geographicCoverage>
<temporalCoverage><rangeOfDates><beginDate><calendarDate>${year}-01-01</calendarDate></beginDate><endDate><calendarDate>${year + 1 + Math.floor(rand() * 5)}-12-31</calendarDate></endDate></rangeOfDates></temporalCoverage>
<taxonomicCoverage><taxonomicClassification><taxonRankName>Genus</taxonRankName><taxonRankValue>${genus}</taxonRankValue>
<taxonomicClassification><taxonRankName>Species</taxonRankName><taxonRankValue>${pick(rand, SPECIES)}</taxonRankValue></taxonomicClassification>
</taxonomicClassification></taxonomicCoverage></coverage>
<project><title>${esc(words(4))}</title><personnel><individualName><surName>${pick(rand, SURNAMES)}</surName></individualName><role>PI</role></personnel></project>
<dataTable><entityName>table${n}.csv</entityName><attributeList>${attributes}</attributeList></dataTable>
</dataset></eml:eml>`;
}
