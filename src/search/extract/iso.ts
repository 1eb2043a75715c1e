/**
 * ISO 19115/19139 (gmd), after dataone-indexer's application-context-isotc211-base.xml: citation title,
 * abstract, keywords, responsible parties, bounding boxes and temporal extent of MD_DataIdentification.
 */
import type { XmlElement } from "../../types/xml-parse.ts";
import { readLenientDate } from "../schema/dates.ts";
import { DocumentBuilder, type SearchDocument } from "../schema/document.ts";
import { addBoxes, type Box, readBox } from "./geo.ts";
import { descendants, firstText, select, textOf } from "./xml-tree.ts";

/** A gco:CharacterString or gmx:Anchor value under an element. */
const value = (el: XmlElement | undefined) =>
  firstText(el, "CharacterString") ?? firstText(el, "Anchor") ?? firstText(el, "Decimal");

export function extractIso(root: XmlElement): SearchDocument {
  const doc = new DocumentBuilder();
  const ident = select(root, "//identificationInfo/MD_DataIdentification")[0];
  const service = select(root, "//identificationInfo/SV_ServiceIdentification")[0];
  const info = ident ?? service;
  const parties = descendants(root, "CI_ResponsibleParty");
  const people = parties.map((p) => value(select(p, "individualName")[0])).filter(Boolean) as string[];
  const orgs = parties.map((p) => value(select(p, "organisationName")[0])).filter(Boolean) as string[];
  const citation = select(info, "citation/CI_Citation")[0];
  doc
    .add("title", value(select(citation, "title")[0]))
    .add("abstract", value(select(info, "abstract")[0]))
    .add("keywords", ...select(info, "descriptiveKeywords/MD_Keywords/keyword").map(value))
    .add("author", people[0])
    .add("authorSurName", people[0])
    .add("authorSurNameSort", people[0])
    .add("investigator", ...people)
    .add("origin", ...(people.length ? people : orgs))
    .add("contactOrganization", orgs[0])
    .add(
      "pubDate",
      ...select(citation, "date/CI_Date")
        .filter((d) =>
          /publication|creation|revision/.test(attributeText(select(d, "dateType/CI_DateTypeCode")[0])),
        )
        .map((d) => firstText(d, "date/Date") ?? firstText(d, "date/DateTime"))
        .map((t) => (t ? readLenientDate(t) : undefined))
        .slice(0, 1),
    )
    .add("text", textOf(root));
  const period = descendants(info, "TimePeriod")[0];
  const begin = firstText(period, "beginPosition");
  const end = firstText(period, "endPosition");
  doc.add("beginDate", begin ? readLenientDate(begin) : undefined);
  doc.add("endDate", end ? readLenientDate(end) : undefined);
  const boxes = descendants(info, "EX_GeographicBoundingBox")
    .map((b) =>
      readBox(
        value(select(b, "northBoundLatitude")[0]),
        value(select(b, "southBoundLatitude")[0]),
        value(select(b, "eastBoundLongitude")[0]),
        value(select(b, "westBoundLongitude")[0]),
      ),
    )
    .filter((b): b is Box => b !== undefined);
  addBoxes(doc, boxes);
  if (service) {
    doc
      .add("isService", true)
      .add("serviceTitle", value(select(service, "citation/CI_Citation/title")[0]))
      .add("serviceDescription", value(select(service, "abstract")[0]))
      .add("serviceType", firstText(service, "serviceType/LocalName"))
      .add(
        "serviceEndpoint",
        ...descendants(service, "connectPoint").map((c) => firstText(c, "CI_OnlineResource/linkage/URL")),
      );
  }
  return doc.fields;
}

/** A code list value: its codeListValue attribute, else its text. */
function attributeText(el: XmlElement | undefined): string {
  return (el?.attributes.get("codeListValue") ?? textOf(el)).toLowerCase();
}
