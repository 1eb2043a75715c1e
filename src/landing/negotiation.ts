/**
 * Content negotiation (RFC 9110 section 12.5.1) on a landing page URL: HTML by default (no Accept, or "*\/*"),
 * the JSON-LD, DataCite XML when a crosswalk is connected, or the metadata document itself in its own media type.
 * Undefined when nothing offered fits the Accept header (a 406).
 */
import Negotiator from "negotiator";
import { DATACITE_MEDIA_TYPE } from "./datacite-representation.ts";

export type Representation = "html" | "json-ld" | "datacite" | "document";

export interface Offer {
  mediaType: string;
  representation: Representation;
}

export function landingOffers(documentMediaType: string, datacite: boolean): Offer[] {
  const offers: Offer[] = [
    { mediaType: "text/html", representation: "html" },
    { mediaType: "application/ld+json", representation: "json-ld" },
    ...(datacite ? [{ mediaType: DATACITE_MEDIA_TYPE, representation: "datacite" as const }] : []),
    { mediaType: documentMediaType, representation: "document" },
  ];
  // A document whose own type is one of the others (HTML, JSON-LD) is offered as that one only.
  return offers.filter((o, i) => offers.findIndex((p) => p.mediaType === o.mediaType) === i);
}

/** The first of `offers` the client prefers most (offer order breaks ties, so "*\/*" gets the first). */
export function negotiate<T extends { mediaType: string }>(
  accept: string | undefined,
  offers: readonly T[],
): T | undefined {
  const chosen = new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaType(
    offers.map((o) => o.mediaType),
  );
  return offers.find((o) => o.mediaType.toLowerCase() === chosen?.toLowerCase());
}
