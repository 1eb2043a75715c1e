/**
 * Names of people taken out of what a reviewer link with `anonymise` serves. EML is rewritten element by element:
 * every responsible party (creator, metadataProvider, associatedParty, contact, publisher, personnel) keeps only
 * a placeholder organizationName (and its role, which the schema requires of associatedParty and personnel);
 * individualName anywhere else is replaced, e-mail addresses and user ids (ORCIDs) are dropped, and so are
 * additionalMetadata (free content) and comments. Other metadata standards are not anonymised: a link
 * that must hide names is refused for them (docs/decisions.md, "Reviewer links").
 */
import { ServiceFailure } from "../../../errors/exceptions.ts";
import { escapeAttr, escapeText, parseXml, XML_DECLARATION, type XmlElement } from "../../../types/xml.ts";

export const WITHHELD = "Withheld for review";

const EML_FORMAT = /^(?:eml:\/\/ecoinformatics\.org\/eml-|https:\/\/eml\.ecoinformatics\.org\/eml-)/;

export function isEmlFormat(formatId: string): boolean {
  return EML_FORMAT.test(formatId);
}

const PARTIES = new Set([
  "creator",
  "metadataProvider",
  "associatedParty",
  "contact",
  "publisher",
  "personnel",
]);
const DROPPED = new Set(["electronicMailAddress", "userId", "additionalMetadata"]);
/** Properties of an ORE resource map that name agents. */
const RDF_AGENT_PROPERTIES = new Set(["creator", "contributor", "publisher", "rightsHolder", "name", "mbox"]);

const localName = (name: string) => name.slice(name.indexOf(":") + 1);
const leaf = (name: string, text: string): XmlElement => ({
  name,
  attributes: new Map(),
  children: [],
  text,
  content: [text],
});
const withContent = (element: XmlElement, content: (XmlElement | string)[]): XmlElement => ({
  ...element,
  children: content.filter((c): c is XmlElement => typeof c !== "string"),
  content,
});

/** The EML document with every name of a person or organisation behind it replaced or removed. */
export function anonymiseEml(bytes: Buffer): Buffer {
  const root = parse(bytes);
  if (localName(root.name) !== "eml")
    throw new ServiceFailure("The metadata document is not EML: it cannot be anonymised.");
  return serialise(rewriteEml(root));
}

function rewriteEml(element: XmlElement): XmlElement {
  const name = localName(element.name);
  if (PARTIES.has(name)) {
    const role = element.children.find((c) => localName(c.name) === "role");
    const attributes = new Map(
      [...element.attributes].filter(([key]) => key === "scope" || key.startsWith("xmlns")),
    );
    return withContent({ ...element, attributes }, [
      leaf("organizationName", WITHHELD),
      ...(role ? [role] : []),
    ]);
  }
  if (name === "individualName") return withContent(element, [leaf("surName", WITHHELD)]);
  return withContent(element, rewrittenContent(element, rewriteEml, DROPPED));
}

/** The resource map without the properties that name its creators (DataONE's libraries write dcterms:creator). */
export function anonymiseResourceMap(bytes: Buffer): Buffer {
  const strip = (element: XmlElement): XmlElement =>
    withContent(element, rewrittenContent(element, strip, RDF_AGENT_PROPERTIES));
  return serialise(strip(parse(bytes)));
}

function rewrittenContent(
  element: XmlElement,
  rewrite: (child: XmlElement) => XmlElement,
  dropped: ReadonlySet<string>,
): (XmlElement | string)[] {
  return element.content
    .filter((c) => typeof c === "string" || !dropped.has(localName(c.name)))
    .map((c) => (typeof c === "string" ? c : rewrite(c)));
}

function parse(bytes: Buffer): XmlElement {
  try {
    return parseXml(bytes, ServiceFailure);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ServiceFailure(`The document cannot be anonymised: ${reason}`);
  }
}

function serialise(root: XmlElement): Buffer {
  return Buffer.from(`${XML_DECLARATION}\n${elementXml(root)}\n`);
}

function elementXml(element: XmlElement): string {
  const attributes = [...element.attributes].map(([key, value]) => ` ${key}="${escapeAttr(value)}"`).join("");
  if (element.content.length === 0) return `<${element.name}${attributes}/>`;
  const inner = element.content.map((c) => (typeof c === "string" ? escapeText(c) : elementXml(c))).join("");
  return `<${element.name}${attributes}>${inner}</${element.name}>`;
}
