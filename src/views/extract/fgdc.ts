/** FGDC Content Standard for Digital Geospatial Metadata (root <metadata>, short element names). */
import type { XmlElement } from "../../types/xml-parse.ts";
import { emptyModel, type MetadataModel } from "../model.ts";
import { children, firstText, path, texts } from "../xml-tree.ts";

export function extractFgdc(root: XmlElement, standard: string): MetadataModel {
  const model = emptyModel("fgdc", standard);
  const idinfo = children(root, "idinfo")[0];
  model.title = firstText(idinfo, "citation/citeinfo/title");
  model.published = firstText(idinfo, "citation/citeinfo/pubdate");
  model.creators = texts(idinfo, "citation/citeinfo/origin");
  model.abstract = texts(idinfo, "descript/abstract");
  model.keywords = texts(idinfo, "keywords/theme/themekey");
  model.coverage.places = texts(idinfo, "keywords/place/placekey");
  const time = path(idinfo, "timeperd/timeinfo")[0];
  model.coverage.temporal.push(...texts(time, "sngdate/caldate"), ...texts(time, "mdattim/sngdate/caldate"));
  for (const range of path(time, "rngdates")) {
    model.coverage.temporal.push(
      `${firstText(range, "begdate") ?? "?"} to ${firstText(range, "enddate") ?? "?"}`,
    );
  }
  for (const box of path(idinfo, "spdom/bounding")) {
    model.coverage.boxes.push({
      west: firstText(box, "westbc") ?? "",
      east: firstText(box, "eastbc") ?? "",
      north: firstText(box, "northbc") ?? "",
      south: firstText(box, "southbc") ?? "",
    });
  }
  model.methods = texts(root, "dataqual/lineage/procstep/procdesc");
  for (const entity of path(root, "eainfo/detailed/enttyp")) {
    const description = firstText(entity, "enttypd");
    model.entities.push({
      name: firstText(entity, "enttypl") ?? "(unnamed entity)",
      ...(description ? { description } : {}),
    });
  }
  for (const url of texts(root, "distinfo/stdorder/digform/digtopt/onlinopt/computer/networka/networkr")) {
    model.entities.push({ name: url, url });
  }
  return model;
}
