/**
 * The `metacatui` theme: the HTML fragment MetacatUI's MetadataView embeds. MetacatUI loads
 * "{viewServiceUrl}{pid} #Metadata" (jQuery load: only the #Metadata element is kept) and then looks for:
 * a `.well` holding `#viewMetadataCitationLink` (the citation, after which it inserts the package table),
 * Bootstrap 2 `.control-group` rows (`label.control-label` + `.controls`), an `h4` "Geographic Region" whose
 * `label`s "North", "South", "East", "West" are followed by values ending in "&nbsp;degrees" (read to draw a
 * map), and `.entitydetails` blocks with `data-id` and an `.object-name` naming each data object.
 */
import { type Html, html } from "../html.ts";
import type { ViewLinks, ViewModel } from "../model.ts";
import { entityLink, systemMetadataRows } from "./sections.ts";

const NBSP = html`&nbsp;`;

export function renderMetacatUiFragment(model: ViewModel, links: ViewLinks): string {
  const { metadata: m, sysmeta } = model;
  const row = (label: string, value: Html | string) =>
    html`<div class="control-group"><label class="control-label">${label}</label><div class="controls controls-well">${value}</div></div>`;
  const rows = (label: string, values: string[]) =>
    values.length ? row(label, html`${values.map((v) => html`<p>${v}</p>`)}`) : "";
  // The year is the document's publication date's (as MetacatUI's citations), the upload's when it has none.
  const citation = [
    m.creators.join(", "),
    m.title,
    /^\s*(\d{4})/.exec(m.published ?? "")?.[1] ?? sysmeta.dateUploaded?.getUTCFullYear().toString(),
    sysmeta.identifier,
  ]
    .filter(Boolean)
    .join(". ");
  const regions = m.coverage.boxes.map(
    (b) => html`<div class="row-fluid geographic-region"><h4>Geographic Region</h4>
${b.description ? row("Description", b.description) : ""}
${(["North", "South", "East", "West"] as const).map((d) =>
  row(d, html`${{ North: b.north, South: b.south, East: b.east, West: b.west }[d]}${NBSP}degrees`),
)}</div>`,
  );
  const entities = m.entities.map((e) => {
    const member = model.packages
      .flatMap((p) => p.members)
      .find((x) => x.id === e.id || x.fileName === e.name || x.id === e.name);
    const id = member?.id ?? e.id ?? e.name;
    return html`<div class="row-fluid entitydetails" data-id="${id}"><h4>Data entity:${NBSP}<span class="object-name">${id}</span></h4>
${row("Name", e.name)}${e.description ? row("Description", e.description) : ""}${row("Download", entityLink(e, model, links))}</div>`;
  });
  return html`<div id="Metadata" class="container">
<div class="well citation"><div class="span10"><span id="viewMetadataCitationLink">${citation}</span></div></div>
<form class="form-horizontal">
<div class="row-fluid" data-section="general"><h4>General</h4>
${m.title ? row("Title", m.title) : ""}
${rows("Creators", m.creators)}
${rows("Abstract", m.abstract)}
${m.keywords.length ? row("Keywords", m.keywords.join(", ")) : ""}
</div>
${m.coverage.temporal.length ? html`<div class="row-fluid"><h4>Temporal Coverage</h4>${rows("Date range", m.coverage.temporal)}</div>` : ""}
${regions}
${m.coverage.places.length ? html`<div class="row-fluid"><h4>Places</h4>${rows("Place", m.coverage.places)}</div>` : ""}
${m.methods.length ? html`<div class="row-fluid"><h4>Methods</h4>${rows("Method", m.methods)}</div>` : ""}
${entities}
${m.fields.length ? html`<div class="row-fluid"><h4>Document content</h4>${m.fields.map((f) => row(f.path, f.value))}</div>` : ""}
<div class="row-fluid"><h4>System metadata</h4>${systemMetadataRows(sysmeta, links).map(([label, value]) => row(label, value))}</div>
</form>
</div>
`.value;
}
