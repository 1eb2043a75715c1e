/** README.html: a human summary of the bag (what the package is, where each member is, who documents what). */
import { html } from "../views/html.ts";
import type { BagPlan } from "./types.ts";

export function readmeHtml(plan: BagPlan, nodeId: string): string {
  const pathOf = new Map(plan.members.map((m) => [m.object.sysmeta.identifier, m.path]));
  const rows = plan.members.map(
    (m) => html`<tr><td>${m.object.sysmeta.identifier}</td><td><a href="${m.path}">${m.path}</a></td>
<td>${m.object.sysmeta.formatId}</td><td>${m.object.digests.size}</td><td><a href="${m.sysmetaPath}">system metadata</a></td></tr>
`,
  );
  const documents = plan.documents.map(
    (d) => html`<li>${pathOf.get(d.metadata) ?? d.metadata} documents ${pathOf.get(d.data) ?? d.data}</li>
`,
  );
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Data package ${plan.packageId}</title></head>
<body>
<h1>Data package ${plan.packageId}</h1>
<p>A BagIt bag made by DataONE Member Node ${nodeId} on ${plan.baggedAt.toISOString()}. The resource map is
<a href="metadata/oai-ore.xml">metadata/oai-ore.xml</a>; each object is under <code>data/</code> and its system
metadata under <code>metadata/sysmeta/</code>. manifest-md5.txt and manifest-sha256.txt hold the checksums.</p>
<table>
<thead><tr><th>Identifier</th><th>File</th><th>Format</th><th>Bytes</th><th></th></tr></thead>
<tbody>
${rows}</tbody>
</table>
${
  documents.length
    ? html`<h2>Documentation</h2>
<ul>
${documents}</ul>
`
    : ""
}</body></html>
`.value;
}
