/**
 * The absolute URLs a landing page, its Link headers, its linkset and the sitemap name. Absolute because they
 * leave the node: search engines and FAIR Signposting clients read them away from the request that carried them.
 */
export interface LandingUrls {
  /** The node's public base URL with its base path ("https://host/mn"). */
  base: string;
  /** The landing page: MNView's default view of an object. */
  landing(pid: string): string;
  /** The object's bytes (MNRead.get). */
  object(pid: string): string;
  /** The object's system metadata (MNRead.getSystemMetadata). */
  sysmeta(pid: string): string;
  /** The FAIR Signposting level 2 linkset of a landing page. */
  linkset(pid: string): string;
  /** A BagIt zip of a package (MNPackage.getPackage). */
  package(pid: string): string;
}

export function landingUrls(base: string): LandingUrls {
  const api = `${base}/v2`;
  const enc = encodeURIComponent;
  return {
    base,
    landing: (pid) => `${api}/views/default/${enc(pid)}`,
    object: (pid) => `${api}/object/${enc(pid)}`,
    sysmeta: (pid) => `${api}/meta/${enc(pid)}`,
    linkset: (pid) => `${base}/linksets/${enc(pid)}`,
    package: (pid) => `${api}/packages/${enc("application/bagit-097")}/${enc(pid)}`,
  };
}

const DOI = /^(?:doi:|https?:\/\/(?:dx\.)?doi\.org\/)(10\.\d{4,9}\/\S+)$/i;

/** The DOI an identifier is ("doi:10.x/y" or a doi.org URL), as "10.x/y"; undefined when it is none. */
export function doiOf(identifier: string | undefined): string | undefined {
  return identifier ? DOI.exec(identifier.trim())?.[1] : undefined;
}

export function orcidUrl(orcid: string): string {
  return `https://orcid.org/${orcid}`;
}
