/** The `default` theme: a complete, readable HTML page with no script. */
import { type Html, html } from "../html.ts";
import type { ViewLinks, ViewModel } from "../model.ts";
import { doiCitation } from "./doi-citation.ts";
import { coverageText, entityLink, systemMetadataRows } from "./sections.ts";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.6rem;line-height:1.25}h2{font-size:1.15rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
dt{font-weight:600}dd{margin:0 0 .4rem 0}.standard{color:#555}.keywords li{display:inline-block;background:#eef;margin:.1rem;padding:0 .4rem;border-radius:.3rem}
.sysmeta th{width:12rem}code{word-break:break-all}`;

/** `head`: more of the page's head (a landing page's structured data, src/landing/). */
export function renderDefaultPage(model: ViewModel, links: ViewLinks, head: Html = html``): string {
  const { metadata: m, sysmeta } = model;
  const title = m.title ?? sysmeta.fileName ?? sysmeta.identifier;
  const section = (heading: string, content: Html | false) =>
    content ? html`<section><h2>${heading}</h2>${content}</section>` : "";
  const list = (items: string[]) =>
    items.length ? html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>` : false;
  const paragraphs = (items: string[]) =>
    items.length ? html`${items.map((p) => html`<p>${p}</p>`)}` : false;
  const spatial =
    m.coverage.boxes.length || m.coverage.places.length
      ? html`<ul>${m.coverage.boxes.map((b) => html`<li>${b.description ? `${b.description}: ` : ""}${coverageText(b)}</li>`)}${m.coverage.places.map((p) => html`<li>${p}</li>`)}</ul>`
      : false;
  const entities = m.entities.length
    ? html`<table><thead><tr><th>Name</th><th>Description</th><th>Download</th></tr></thead><tbody>${m.entities.map(
        (e) =>
          html`<tr><td>${e.name}</td><td>${e.description ?? ""}</td><td>${entityLink(e, model, links)}</td></tr>`,
      )}</tbody></table>`
    : false;
  const packages = model.packages.length
    ? html`${model.packages.map(
        (
          p,
        ) => html`<p>Package <a href="${links.view(p.id)}">${p.id}</a> (<a href="${links.package(p.id)}">download as a BagIt zip</a>)</p>
<table><thead><tr><th>Member</th><th>Format</th><th>Bytes</th><th></th></tr></thead><tbody>${p.members.map(
          (member) =>
            html`<tr><td><a href="${links.view(member.id)}">${member.fileName ?? member.id}</a></td><td>${member.formatId ?? ""}</td><td>${member.size ?? ""}</td><td><a href="${links.object(member.id)}">download</a></td></tr>`,
        )}</tbody></table>`,
      )}`
    : false;
  const fields = m.fields.length
    ? html`<table><tbody>${m.fields.map((f) => html`<tr><th>${f.path}</th><td>${f.value}</td></tr>`)}</tbody></table>`
    : false;
  const download =
    m.kind === "data" || m.kind === "resource-map"
      ? html`<p><a class="download" href="${links.object(sysmeta.identifier)}">Download ${sysmeta.fileName ?? sysmeta.identifier}</a></p>`
      : "";

  const usage = model.usage
    ? html`<p class="usage">${plural(model.usage.views, "view")} · ${plural(model.usage.downloads, "download")}</p>`
    : "";

  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${STYLE}</style>${head}</head>
<body>
<header><h1 id="title">${title}</h1><p class="standard">${m.standard} · <code>${sysmeta.identifier}</code></p>${usage}${download}</header>
${doiCitation(model)}
${section("Creators", list(m.creators))}
${section("Abstract", paragraphs(m.abstract))}
${section("Keywords", m.keywords.length ? html`<ul class="keywords">${m.keywords.map((k) => html`<li>${k}</li>`)}</ul>` : false)}
${section("Temporal coverage", list(m.coverage.temporal))}
${section("Spatial coverage", spatial)}
${section("Methods", paragraphs(m.methods))}
${section("Data entities", entities)}
${section("Package", packages)}
${section("Document content", fields)}
<section class="sysmeta"><h2>System metadata</h2><table><tbody>${systemMetadataRows(sysmeta, links).map(
    ([label, value]) => html`<tr><th>${label}</th><td>${value}</td></tr>`,
  )}</tbody></table></section>
</body></html>
`.value;
}

/** "1 view", "2 views" (COUNTER's counts, in the locale-free form of the rest of the page). */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
