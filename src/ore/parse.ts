/**
 * Parse an OAI-ORE resource map (RDF/XML) into its map id, aggregation, members and documents relations.
 * The bytes are streamed through a maintained RDF/XML parser, bounded in size; only the triples that matter are
 * kept. A DOCTYPE is refused, as by every XML parser of this node. The parser is loaded on the first map, not
 * when the node starts (start-up stays short for nodes that never see one).
 */
import { Readable } from "node:stream";
import type { RdfXmlParser } from "rdfxml-streaming-parser";
import { pidFromUri } from "./identifiers.ts";
import { type Documents, type ResourceMap, ResourceMapError } from "./types.ts";
import { TERMS } from "./vocabulary.ts";

export interface ParseOptions {
  /** Refuse documents larger than this many bytes (default 64 MiB). */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const KEPT = new Set<string>(Object.values(TERMS));

interface Triple {
  subject: string;
  predicate: string;
  object: string;
}

export async function parseResourceMap(
  source: Buffer | string | Readable,
  options: ParseOptions = {},
): Promise<ResourceMap> {
  const { RdfXmlParser: Parser } = await import("rdfxml-streaming-parser");
  const triples = await readTriples(new Parser(), toStream(source), options.maxBytes ?? DEFAULT_MAX_BYTES);
  return interpret(triples);
}

function toStream(source: Buffer | string | Readable): Readable {
  if (typeof source === "string" || Buffer.isBuffer(source)) return Readable.from([Buffer.from(source)]);
  return source;
}

function readTriples(parser: RdfXmlParser, input: Readable, maxBytes: number): Promise<Triple[]> {
  return new Promise((resolve, reject) => {
    const triples: Triple[] = [];
    let bytes = 0;
    let tail = "";
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      input.unpipe(parser);
      input.destroy();
      reject(
        error instanceof ResourceMapError
          ? error
          : new ResourceMapError(`Not a valid RDF/XML resource map: ${error.message}`),
      );
    };
    input.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes)
        return fail(new ResourceMapError(`The resource map is larger than ${maxBytes} bytes.`));
      // The window keeps a few bytes of the previous chunk so a DOCTYPE split across chunks is still seen.
      const window = tail + chunk.toString("latin1");
      if (/<!DOCTYPE/i.test(window))
        return fail(new ResourceMapError("A DOCTYPE is not allowed in a resource map."));
      tail = window.slice(-16);
    });
    input.on("error", fail);
    parser.on("error", fail);
    parser.on("data", (quad) => {
      const predicate: string = quad.predicate.value;
      if (!KEPT.has(predicate)) return;
      triples.push({ subject: termKey(quad.subject), predicate, object: termKey(quad.object) });
    });
    parser.on("end", () => {
      if (!failed) resolve(triples);
    });
    input.pipe(parser);
  });
}

/** Named nodes and literals by value; blank nodes kept apart from URIs. */
function termKey(term: { termType: string; value: string }): string {
  return term.termType === "BlankNode" ? `_:${term.value}` : term.value;
}

function interpret(triples: Triple[]): ResourceMap {
  const identifiers = new Map<string, string>();
  for (const t of triples) {
    if (t.predicate === TERMS.identifier && !identifiers.has(t.subject))
      identifiers.set(t.subject, t.object.trim());
  }
  const pidOf = (uri: string) => identifiers.get(uri) ?? pidFromUri(uri);

  const maps = unique(
    triples.filter((t) => t.predicate === TERMS.type && t.object === TERMS.ResourceMap).map((t) => t.subject),
  );
  if (maps.length !== 1) {
    throw new ResourceMapError(
      `A resource map must describe exactly one ore:ResourceMap; this one has ${maps.length}.`,
    );
  }
  const map = maps[0] as string;
  const aggregation = findAggregation(triples, map);

  const members = unique(
    triples.flatMap((t) => {
      if (t.predicate === TERMS.aggregates && t.subject === aggregation) return [t.object];
      if (t.predicate === TERMS.isAggregatedBy && t.object === aggregation) return [t.subject];
      return [];
    }),
  )
    .filter((uri) => uri !== map)
    .map(pidOf);

  const pairs = new Map<string, Documents>();
  for (const t of triples) {
    let pair: Documents | undefined;
    if (t.predicate === TERMS.documents) pair = { metadata: pidOf(t.subject), data: pidOf(t.object) };
    if (t.predicate === TERMS.isDocumentedBy) pair = { metadata: pidOf(t.object), data: pidOf(t.subject) };
    if (pair) pairs.set(JSON.stringify([pair.metadata, pair.data]), pair);
  }
  return { id: pidOf(map), aggregation, members: unique(members), documents: [...pairs.values()] };
}

/** "ore:describes" from the map; failing that an ore:Aggregation that says it is described by the map. */
function findAggregation(triples: Triple[], map: string): string {
  const described = unique(
    triples.filter((t) => t.subject === map && t.predicate === TERMS.describes).map((t) => t.object),
  );
  if (described.length === 1) return described[0] as string;
  if (described.length > 1)
    throw new ResourceMapError("The resource map describes more than one aggregation.");
  const inverse = unique(
    triples.filter((t) => t.predicate === TERMS.isDescribedBy && t.object === map).map((t) => t.subject),
  );
  if (inverse.length === 1) return inverse[0] as string;
  throw new ResourceMapError("The resource map names no aggregation (ore:describes).");
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
