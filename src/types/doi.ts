/** DOIs among identifiers: "doi:10.x/y", "https://doi.org/10.x/y" or the bare "10.x/y" (DataCite's DOI syntax). */

const DOI = /^(?:doi:|https?:\/\/(?:dx\.)?doi\.org\/)?(10\.\d{4,9}(?:\.\d+)*\/\S+)$/i;

/** The bare DOI ("10.x/y") an identifier names, if it names one. */
export function doiOf(identifier: string): string | undefined {
  return DOI.exec(identifier.trim())?.[1];
}
