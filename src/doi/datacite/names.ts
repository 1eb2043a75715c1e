/** Person names and identifiers as DataCite writes them. */

const ORCID = /(\d{4}-\d{4}-\d{4}-\d{3}[\dX])/;

/** An ORCID iD as DataCite wants it (https://orcid.org/0000-0000-0000-0000), from any way of writing it. */
export function orcidOf(value: string): string | undefined {
  const id = ORCID.exec(value)?.[1];
  return id ? `https://orcid.org/${id}` : undefined;
}

/** "Given Family" written as one string, as DataCite's "Family, Given" when it looks like a person's name. */
export function personalName(written: string): { name: string; givenName?: string; familyName?: string } {
  const name = written.trim();
  if (name.includes(",")) {
    const [family, given] = name.split(",", 2).map((s) => s.trim());
    return { name, ...(given ? { givenName: given } : {}), ...(family ? { familyName: family } : {}) };
  }
  return { name };
}

/** DataCite's funderIdentifierType of a funder's identifier: Crossref Funder ID, ROR, else Other. */
export function funderType(identifier: string): string {
  if (/^https?:\/\/(dx\.)?doi\.org\/10\.13039\//.test(identifier)) return "Crossref Funder ID";
  if (/^https?:\/\/ror\.org\//.test(identifier)) return "ROR";
  return "Other";
}
