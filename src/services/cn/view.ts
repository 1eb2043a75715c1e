/**
 * CNView: listViews and view, the MN's themes over the CN's records. "The CN may redirect to the authoritative
 * MN's view": a science metadata document or resource map the CN knows by its system metadata alone (no bytes
 * here) is answered with 303 to `{baseURL}/v2/views/{theme}/{pid}` of its authoritative Member Node when that node
 * is approved and its Node document lists MNView v2; otherwise the CN renders what it has, the system metadata.
 */

import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { buildViewModel } from "../../views/build.ts";
import type { ViewLinks } from "../../views/model.ts";
import { themeFor } from "../../views/themes.ts";
import { readableObject } from "../mn/read.ts";
import { memberNodeSources, type ViewAnswer, view } from "../mn/view.ts";
import { logEvent } from "../shared/events.ts";
import { usageSummary } from "../usage/usage-summary.ts";
import { NO_BYTES } from "./core.ts";
import { approvedNode } from "./nodes.ts";

export async function cnView(
  ctx: NodeContext,
  call: CallInfo,
  theme: string,
  id: string,
  links: ViewLinks,
): Promise<ViewAnswer> {
  const object = await readableObject(ctx, call, id);
  if (object.contentKey !== NO_BYTES) return view(ctx, call, theme, id, links);
  const pid = object.sysmeta.identifier;
  const authoritative = object.sysmeta.authoritativeMemberNode;
  const holder = authoritative ? await approvedNode(ctx, authoritative) : undefined;
  const servesViews = holder?.services.some((s) => s.name === "MNView" && s.version === "v2" && s.available);
  if (holder && holder.type === "mn" && servesViews) {
    return {
      redirect: `${holder.baseURL.replace(/\/$/, "")}/v2/views/${encodeURIComponent(theme)}/${encodeURIComponent(pid)}`,
    };
  }
  // No document to read here: the page of an object known by its system metadata (format undefined: data page).
  const sources = memberNodeSources(ctx, call);
  // Its repository is the node holding it (DataCite's publisher), not this CN.
  const { repository: _cn, ...elsewhere } = sources;
  const model = await buildViewModel(
    { ...elsewhere, format: () => undefined, ...(holder?.name ? { repository: holder.name } : {}) },
    object,
  );
  model.usage = await usageSummary(ctx, object);
  const chosen = themeFor(theme);
  logEvent(ctx, call, pid, "read");
  return { contentType: chosen.contentType, body: chosen.render(model, links) };
}
