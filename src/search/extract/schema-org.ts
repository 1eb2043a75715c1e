/**
 * schema.org Dataset in JSON-LD (science-on-schema.org): name, description, keywords, creators, dates, spatial
 * and temporal coverage. Only plain JSON is read (no remote @context is fetched).
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { findDataset } from "../../types/json-ld.ts";
import { readLenientDate } from "../schema/dates.ts";
import { DocumentBuilder, type SearchDocument } from "../schema/document.ts";
import { addBoxes, type Box, readBox } from "./geo.ts";

type Json = unknown;

export function extractSchemaOrg(bytes: Buffer): SearchDocument {
  let data: Json;
  try {
    data = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new InvalidRequest("The JSON-LD document is not valid JSON.");
  }
  const dataset = findDataset(data);
  const doc = new DocumentBuilder();
  if (!dataset) return doc.fields;
  const creators = list(dataset.creator).flatMap((c) => list(isObject(c) && "@list" in c ? c["@list"] : c));
  const names = creators.map(partyName).filter((n): n is string => !!n);
  const first = creators.find(isObject);
  doc
    .add("title", ...strings(dataset.name).slice(0, 1))
    .add("abstract", strings(dataset.description).join(" "))
    .add(
      "keywords",
      ...list(dataset.keywords).flatMap((k) =>
        typeof k === "string" ? k.split(",") : strings(isObject(k) ? k.name : k),
      ),
    )
    .add("origin", ...names)
    .add("author", names[0])
    .add("authorGivenName", ...strings(first?.givenName).slice(0, 1))
    .add("authorSurName", ...strings(first?.familyName).slice(0, 1))
    .add("authorLastName", ...creators.flatMap((c) => strings(isObject(c) ? c.familyName : undefined)))
    .add("pubDate", ...strings(dataset.datePublished).slice(0, 1).map(readLenientDate))
    .add("funding", ...list(dataset.funding).flatMap((f) => strings(isObject(f) ? f.name : f)))
    .add(
      "awardNumber",
      ...list(dataset.funding).flatMap((f) => strings(isObject(f) ? f.identifier : undefined)),
    )
    .add("text", collectText(dataset).join(" "));
  const temporal = strings(dataset.temporalCoverage)[0];
  if (temporal) {
    const [start, end] = temporal.split("/");
    doc.add("beginDate", start ? readLenientDate(start) : undefined);
    doc.add("endDate", end && end !== ".." ? readLenientDate(end) : undefined);
  }
  const boxes: Box[] = [];
  for (const place of list(dataset.spatialCoverage)) {
    if (!isObject(place)) continue;
    for (const geo of list(place.geo)) {
      if (!isObject(geo)) continue;
      const box = strings(geo.box)[0]
        ?.trim()
        .split(/[\s,]+/);
      if (box?.length === 4) {
        const b = readBox(box[2], box[0], box[3], box[1]); // "south west north east"
        if (b) boxes.push(b);
      } else if (geo.latitude !== undefined && geo.longitude !== undefined) {
        const b = readBox(
          String(geo.latitude),
          String(geo.latitude),
          String(geo.longitude),
          String(geo.longitude),
        );
        if (b) boxes.push(b);
      }
    }
  }
  addBoxes(doc, boxes);
  return doc.fields;
}

const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const list = (v: Json): Json[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const strings = (v: Json): string[] =>
  list(v).flatMap((x) =>
    typeof x === "string"
      ? [x]
      : typeof x === "number"
        ? [String(x)]
        : isObject(x) && "@value" in x
          ? strings(x["@value"])
          : [],
  );

function partyName(party: Json): string | undefined {
  if (typeof party === "string") return party;
  if (!isObject(party)) return undefined;
  const name = strings(party.name)[0];
  if (name) return name;
  const joined = [...strings(party.givenName), ...strings(party.familyName)].join(" ");
  return joined || undefined;
}

function collectText(node: Json, out: string[] = []): string[] {
  if (typeof node === "string") out.push(node);
  else if (Array.isArray(node)) for (const item of node) collectText(item, out);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) if (!key.startsWith("@")) collectText(value, out);
  }
  return out;
}
