/** The parts of a view both themes share: each takes the model and returns escaped-by-construction Html. */
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { type Html, html, link } from "../html.ts";
import type { DataEntity, ViewLinks, ViewModel } from "../model.ts";

export function systemMetadataRows(sm: SystemMetadata, links: ViewLinks): [string, Html][] {
  const rows: [string, Html | string | undefined][] = [
    ["Identifier", sm.identifier],
    ["Series", sm.seriesId],
    ["Format", sm.formatId],
    ["File name", sm.fileName],
    ["Size", `${sm.size.toLocaleString("en-US")} bytes`],
    ["Checksum", `${sm.checksum.algorithm} ${sm.checksum.value}`],
    ["Uploaded", sm.dateUploaded?.toISOString()],
    ["Modified", sm.dateSysMetadataModified?.toISOString()],
    ["Rights holder", sm.rightsHolder],
    ["Authoritative node", sm.authoritativeMemberNode],
    ["Obsoletes", sm.obsoletes ? html`<a href="${links.view(sm.obsoletes)}">${sm.obsoletes}</a>` : undefined],
    [
      "Obsoleted by",
      sm.obsoletedBy ? html`<a href="${links.view(sm.obsoletedBy)}">${sm.obsoletedBy}</a>` : undefined,
    ],
    ["Archived", sm.archived ? "yes" : undefined],
  ];
  return rows
    .filter((row): row is [string, Html | string] => row[1] !== undefined && row[1] !== "")
    .map(([label, value]) => [label, html`${value}`]);
}

/** A data entity links to the bytes when it names a package member (by id or file name) or a safe URL. */
export function entityLink(entity: DataEntity, model: ViewModel, links: ViewLinks): Html {
  const members = model.packages.flatMap((p) => p.members);
  const member =
    members.find((m) => m.id === entity.id) ??
    members.find((m) => m.id === entity.name || (m.fileName !== undefined && m.fileName === entity.name));
  if (member)
    return html`<a class="download" href="${links.object(member.id)}">Download ${member.fileName ?? member.id}</a>`;
  if (entity.url) return link(entity.url, entity.url);
  return html``;
}

export function coverageText(box: { west: string; east: string; north: string; south: string }): string {
  return `W ${box.west}, E ${box.east}, N ${box.north}, S ${box.south}`;
}
