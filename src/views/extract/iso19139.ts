/** ISO 19139 (gmd:MD_Metadata, gmi:MI_Metadata): identification, extents, lineage and online resources. */
import type { XmlElement } from "../../types/xml-parse.ts";
import { emptyModel, type MetadataModel } from "../model.ts";
import { descendants, firstText, text } from "../xml-tree.ts";

export function extractIso19139(root: XmlElement, standard: string): MetadataModel {
  const model = emptyModel("iso19139", standard);
  // identificationInfo holds one MD_DataIdentification (or SV_ServiceIdentification) element.
  const identification = descendants(root, "identificationInfo")[0]?.children[0];
  const citation = descendants(identification, "CI_Citation")[0];
  model.title = firstText(citation, "title/CharacterString") ?? firstText(citation, "title/Anchor");
  // CI_Citation/date/CI_Date with dateType "publication": its gco:Date or gco:DateTime.
  const publication = descendants(citation, "CI_Date").find((d) =>
    descendants(d, "CI_DateTypeCode").some(
      (code) => code.attributes.get("codeListValue") === "publication" || text(code) === "publication",
    ),
  );
  model.published = firstText(publication, "date/Date") ?? firstText(publication, "date/DateTime");
  model.creators = unique(
    descendants(identification, "CI_ResponsibleParty").map(
      (p) =>
        firstText(p, "individualName/CharacterString") ??
        firstText(p, "organisationName/CharacterString") ??
        firstText(p, "positionName/CharacterString") ??
        "",
    ),
  );
  model.abstract = [firstText(identification, "abstract/CharacterString") ?? ""].filter(Boolean);
  model.keywords = descendants(identification, "keyword").map(text).filter(Boolean);
  for (const period of descendants(identification, "TimePeriod")) {
    model.coverage.temporal.push(
      `${firstText(period, "beginPosition") ?? "?"} to ${firstText(period, "endPosition") ?? "?"}`,
    );
  }
  for (const instant of descendants(identification, "TimeInstant")) {
    const at = firstText(instant, "timePosition");
    if (at) model.coverage.temporal.push(at);
  }
  for (const box of descendants(identification, "EX_GeographicBoundingBox")) {
    model.coverage.boxes.push({
      west: firstText(box, "westBoundLongitude/Decimal") ?? "",
      east: firstText(box, "eastBoundLongitude/Decimal") ?? "",
      north: firstText(box, "northBoundLatitude/Decimal") ?? "",
      south: firstText(box, "southBoundLatitude/Decimal") ?? "",
    });
  }
  model.coverage.places = descendants(identification, "EX_GeographicDescription")
    .map((d) => text(d))
    .filter(Boolean);
  model.methods = descendants(root, "LI_Lineage")
    .flatMap((l) => [
      firstText(l, "statement/CharacterString"),
      ...descendants(l, "LI_ProcessStep").map((s) => firstText(s, "description/CharacterString")),
    ])
    .filter((t): t is string => Boolean(t));
  for (const resource of descendants(descendants(root, "distributionInfo")[0], "CI_OnlineResource")) {
    const url = firstText(resource, "linkage/URL");
    const name = firstText(resource, "name/CharacterString") ?? url ?? "(online resource)";
    const description = firstText(resource, "description/CharacterString");
    model.entities.push({ name, ...(description ? { description } : {}), ...(url ? { url } : {}) });
  }
  return model;
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter(Boolean))];
}
