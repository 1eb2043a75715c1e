/**
 * Bounding boxes: the four coordinates and the geohashes (precision 1 to 9) of the box's centre, which the
 * DataONE indexer stores as geohash_1 ... geohash_9 and MetacatUI's map facets on.
 */
import type { DocumentBuilder } from "../schema/document.ts";

const BASE32 = "0123456789bcdefghjkmnpqrstuvwxyz";

export function geohash(latitude: number, longitude: number, precision: number): string {
  let [latLo, latHi, lonLo, lonHi] = [-90, 90, -180, 180];
  let hash = "";
  let bit = 0;
  let value = 0;
  let even = true;
  while (hash.length < precision) {
    if (even) {
      const mid = (lonLo + lonHi) / 2;
      if (longitude >= mid) {
        value = value * 2 + 1;
        lonLo = mid;
      } else {
        value *= 2;
        lonHi = mid;
      }
    } else {
      const mid = (latLo + latHi) / 2;
      if (latitude >= mid) {
        value = value * 2 + 1;
        latLo = mid;
      } else {
        value *= 2;
        latHi = mid;
      }
    }
    even = !even;
    if (++bit === 5) {
      hash += BASE32[value];
      bit = 0;
      value = 0;
    }
  }
  return hash;
}

export interface Box {
  north: number;
  south: number;
  east: number;
  west: number;
}

const coordinate = (text: string | undefined, limit: number) => {
  if (text === undefined) return undefined;
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(n) && Math.abs(n) <= limit ? n : undefined;
};

/** A box from four coordinate texts, or undefined when any is missing or out of range. */
export function readBox(north?: string, south?: string, east?: string, west?: string): Box | undefined {
  const box = {
    north: coordinate(north, 90),
    south: coordinate(south, 90),
    east: coordinate(east, 180),
    west: coordinate(west, 180),
  };
  if (
    box.north === undefined ||
    box.south === undefined ||
    box.east === undefined ||
    box.west === undefined
  ) {
    return undefined;
  }
  return box as Box;
}

/** The first box gives the four coordinates; every box adds its centre's geohashes. */
export function addBoxes(doc: DocumentBuilder, boxes: Box[]): void {
  const [first] = boxes;
  if (!first) return;
  doc
    .add("northBoundCoord", first.north)
    .add("southBoundCoord", first.south)
    .add("eastBoundCoord", first.east)
    .add("westBoundCoord", first.west);
  for (const box of boxes) {
    const lat = (box.north + box.south) / 2;
    let lon = (box.east + box.west) / 2;
    if (box.west > box.east) lon = lon > 0 ? lon - 180 : lon + 180; // box crossing the antimeridian
    for (let p = 1; p <= 9; p++) doc.add(`geohash_${p}`, geohash(lat, lon, p));
  }
}
