/**
 * The node's home page, for a person with a browser at its base URL: its name and description, how many public
 * datasets it holds, a search box (the Solr query, answered as JSON), the latest public datasets linking to their
 * view pages, and links to the API, the status page and the docs. Only what an anonymous caller may read is
 * shown; every value goes through the escaping `html` template.
 */
import { type Html, html } from "../html.ts";

export interface HomeDataset {
  pid: string;
  title: string | undefined;
  uploaded: string | undefined;
}

export interface HomePageInput {
  nodeName: string;
  nodeDescription: string;
  nodeId: string;
  role: "mn" | "cn";
  /** The version root the links use, e.g. "/mn/v2". */
  api: string;
  publicDatasets: number;
  recent: readonly HomeDataset[];
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.6rem;margin:0 0 .3rem}.sub{color:#555;margin:0 0 1.2rem}form{display:flex;gap:.4rem;margin:1rem 0}
input[type=search]{flex:1;font:inherit;padding:.35rem .5rem}button{font:inherit;padding:.35rem .8rem}
li{margin:.25rem 0}.none{color:#777}nav a{margin-right:1rem}time{color:#555;font-size:.9rem}`;

export function renderHomePage(input: HomePageInput): string {
  const { api } = input;
  const view = (pid: string) => `${api}/views/default/${encodeURIComponent(pid)}`;
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.nodeName}</title><style>${STYLE}</style></head>
<body><header><h1>${input.nodeName}</h1>
<p class="sub">${input.nodeDescription}</p>
<p class="sub">${input.role === "cn" ? "DataONE Coordinating Node" : "DataONE Member Node"} ${input.nodeId} · <span id="dataset-count">${input.publicDatasets.toLocaleString("en")}</span> public datasets</p></header>
<form method="get" action="${api}/query/solr/" role="search"><input type="hidden" name="fq" value="formatType:METADATA"><input type="hidden" name="fl" value="id,title,dateUploaded"><input type="hidden" name="wt" value="json"><input type="search" name="q" aria-label="Search the datasets" placeholder="Search the datasets (Solr syntax, e.g. title:lake)" value="*:*"><button type="submit">Search</button></form>
<h2>Recent datasets</h2>
${recentList(input.recent, view)}
<nav><a href="${api}/node">API: the node's capabilities</a><a href="${api.replace(/\/v2$/, "")}/status">Status (administrators)</a><a href="https://dataoneorg.github.io/api-documentation/">DataONE API documentation</a></nav>
</body></html>`.toString();
}

function recentList(recent: readonly HomeDataset[], view: (pid: string) => string): Html {
  if (recent.length === 0) return html`<p class="none">No public datasets yet.</p>`;
  return html`<ul id="recent">${recent.map(
    (d) =>
      html`<li><a href="${view(d.pid)}">${d.title ?? d.pid}</a> ${d.uploaded ? html`<time>${d.uploaded.slice(0, 10)}</time>` : ""}</li>`,
  )}</ul>`;
}
