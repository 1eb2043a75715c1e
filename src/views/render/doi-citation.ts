/**
 * The DOI and its citation on a page, for an object whose identifier is a DOI, in DataCite's recommended form
 * ("Creator (PublicationYear). Title. Version. Publisher. Identifier", the identifier as a https://doi.org link;
 * the publisher is the repository holding the object, as in its DataCite record, which has no version), and a
 * notice when the version is archived (its DOI keeps resolving here).
 */
import { doiOf } from "../../types/doi.ts";
import { type Html, html } from "../html.ts";
import type { ViewModel } from "../model.ts";

export function doiCitation(model: ViewModel, publisher = model.repository): Html | "" {
  const { metadata: m, sysmeta } = model;
  const doi = doiOf(sysmeta.identifier);
  if (!doi) return "";
  const link = `https://doi.org/${doi}`;
  const year =
    /^\s*(\d{4})/.exec(m.published ?? "")?.[1] ?? sysmeta.dateUploaded?.getUTCFullYear().toString();
  const creators = m.creators.join("; ");
  const head = [
    creators && year ? `${creators} (${year})` : creators || (year ? `(${year})` : ""),
    m.title,
    publisher,
  ]
    .filter(Boolean)
    .join(". ");
  return html`<section class="doi" id="doi"><h2>Cite this dataset</h2>
<p class="citation">${head ? `${head}. ` : ""}<a href="${link}">${link}</a></p>
${sysmeta.archived ? html`<p class="archived">This version is archived: it is no longer listed in searches, and its DOI still resolves to this page.</p>` : ""}
</section>`;
}
