/** EML 2.x beyond the page: creators with ORCIDs (userId), shortName, license, publisher, attributes. */
import type { XmlElement } from "../../types/xml-parse.ts";
import type { MetadataDetails } from "../model.ts";
import { children, firstText, paragraphs, path, text } from "../xml-tree.ts";

const ORCID = /(\d{4}-\d{4}-\d{4}-\d{3}[\dX])/i;

/** `names` are the creators' names as the page shows them, in the same order as the creator elements. */
export function emlDetails(dataset: XmlElement | undefined, names: string[]): MetadataDetails {
  const creators = path(dataset, "creator").map((party, index) => {
    // <userId directory="https://orcid.org">https://orcid.org/0000-0002-1825-0097</userId>, or the bare form.
    const orcid = children(party, "userId")
      .map((id) => ORCID.exec(text(id))?.[1])
      .find((found) => found !== undefined);
    const kind: "person" | "organization" = children(party, "individualName").length
      ? "person"
      : "organization";
    return { name: names[index] ?? text(party), kind, ...(orcid ? { orcid: orcid.toUpperCase() } : {}) };
  });
  const details: MetadataDetails = { creators: creators.filter((c) => c.name !== ""), variables: [] };
  const shortName = firstText(dataset, "shortName");
  if (shortName) details.shortName = shortName;
  const licenseUrl = firstText(dataset, "licensed/url");
  const licenseName = firstText(dataset, "licensed/licenseName");
  const rights = paragraphs(children(dataset, "intellectualRights")[0]).join(" ");
  if (licenseUrl || licenseName || rights)
    details.license = {
      ...(licenseName ? { name: licenseName } : {}),
      ...(licenseUrl ? { url: licenseUrl } : {}),
      ...(rights ? { text: rights } : {}),
    };
  const publisher = path(dataset, "publisher")[0];
  const publisherName = publisher
    ? (firstText(publisher, "organizationName") ?? firstText(publisher, "individualName/surName"))
    : undefined;
  if (publisherName) details.publisher = publisherName;
  for (const attribute of path(dataset, "dataTable/attributeList/attribute").concat(
    path(dataset, "otherEntity/attributeList/attribute"),
  )) {
    const name = firstText(attribute, "attributeName");
    if (!name) continue;
    const description = firstText(attribute, "attributeDefinition");
    const unit =
      firstText(attribute, "measurementScale/ratio/unit/standardUnit") ??
      firstText(attribute, "measurementScale/interval/unit/standardUnit") ??
      firstText(attribute, "measurementScale/ratio/unit/customUnit") ??
      firstText(attribute, "measurementScale/interval/unit/customUnit");
    details.variables.push({
      name,
      ...(description ? { description } : {}),
      ...(unit ? { unit } : {}),
    });
  }
  return details;
}
