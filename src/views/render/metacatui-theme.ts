/**
 * The `metacatui` theme: the HTML fragment MetacatUI's MetadataView embeds, in the shape Metacat's EML stylesheet
 * for MetacatUI gives it. MetacatUI loads "{viewServiceUrl}{pid}" and keeps the #Metadata element; it shows its own
 * citation header above it and hides the fragment's (`#Metadata form > .citation`), so the citation is the form's
 * first child (a `.well` holding `#viewMetadataCitationLink`, for MetacatUIs that read it from there). It styles
 * Bootstrap 2 `.control-group` rows (`label.control-label` + `.controls.controls-well`), reads an `h4` "Geographic
 * Region" whose `label`s "North", "South", "East", "West" are followed by values ending in "&nbsp;degrees" (to
 * draw a map), and finds each data object's `.entitydetails` block by `data-id`: labelled with the entity's kind
 * ("Data Table", "Other Entity"), its name in the "Entity Name" row (`.entityName[data-entity-name]`), after which
 * MetacatUI inserts its download and view buttons.
 */
import { type Html, html } from "../html.ts";
import type { ViewLinks, ViewModel } from "../model.ts";
import { doiCitation } from "./doi-citation.ts";
import { entityLink, systemMetadataRows } from "./sections.ts";

const NBSP = html`&nbsp;`;
/** The labels Metacat's stylesheet gives EML's entity kinds. */
const KIND_LABELS: Record<string, string> = {
  dataTable: "Data Table",
  otherEntity: "Other Entity",
  spatialRaster: "Spatial Raster",
  spatialVector: "Spatial Vector",
  storedProcedure: "Stored Procedure",
  view: "View",
};

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
    const name = html`<strong class="entityName" data-entity-name="${e.name}">${e.name}</strong>`;
    return html`<div class="control-group entity"><div class="controls controls-well entitydetails" data-id="${id}"><label class="control-label">${KIND_LABELS[e.kind ?? ""] ?? "Other Entity"}</label>
${row("Entity Name", name)}${e.description ? row("Description", e.description) : ""}${row("Download", entityLink(e, model, links))}</div></div>`;
  });
  return html`<div id="Metadata" class="container">
<form class="form-horizontal">
<div class="well citation"><span id="viewMetadataCitationLink">${citation}</span></div>
${doiCitation(model)}
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
${entities.length ? html`<div class="row-fluid" data-section="entities"><h4>Data Table, Image, and Other Data Details</h4>${entities}</div>` : ""}
${m.fields.length ? html`<div class="row-fluid"><h4>Document content</h4>${m.fields.map((f) => row(f.path, f.value))}</div>` : ""}
<div class="row-fluid"><h4>System metadata</h4>${systemMetadataRows(sysmeta, links).map(([label, value]) => row(label, value))}</div>
</form>
</div>
`.value;
}
