/**
 * MNView: listViews ("an OptionList of themes; the key is the theme name for view") and view ("a rendered view
 * of any content type; the response headers MUST carry the correct media type. An unrecognised theme renders
 * with the default theme and is not an error").
 */
import { Readable } from "node:stream";
import { isAllowed } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { SMALL_READ_LIMIT } from "../../store/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { buildViewModel, type ViewSources } from "../../views/build.ts";
import type { ViewLinks } from "../../views/model.ts";
import { THEMES, themeFor } from "../../views/themes.ts";
import { logEvent } from "../shared/events.ts";
import { usageSummary } from "../usage/usage-summary.ts";
import { packagesOf } from "./packages-of.ts";
import { readableObject } from "./read.ts";

export function listViews(): { key: string; description: string }[] {
  return THEMES.map(({ key, description }) => ({ key, description }));
}

/** A rendered page, or (a CN's answer) the URL of the page on the node that holds the document. */
export type ViewAnswer = { contentType: string; body: string } | { redirect: string };

export async function view(
  ctx: NodeContext,
  call: CallInfo,
  theme: string,
  id: string,
  links: ViewLinks,
): Promise<{ contentType: string; body: string }> {
  const object = await readableObject(ctx, call, id);
  const chosen = themeFor(theme);
  const model = await buildViewModel(memberNodeSources(ctx, call), object);
  model.usage = await usageSummary(ctx, object);
  logEvent(ctx, call, object.sysmeta.identifier, "read");
  return { contentType: chosen.contentType, body: chosen.render(model, links) };
}

/** What a Member Node shows: its own objects, those the caller may read. */
export function memberNodeSources(ctx: NodeContext, call: CallInfo): ViewSources {
  return {
    format: (formatId) => ctx.formats.get(formatId),
    open: (object) => openBytes(ctx, object),
    readable: async (pid) => {
      const object = await ctx.db.objects.get(pid);
      return object && isAllowed(call.session, "read", object.sysmeta) ? object : undefined;
    },
    readableMany: async (pids) => {
      const found = await ctx.db.objects.getMany(pids);
      for (const [pid, object] of found)
        if (!isAllowed(call.session, "read", object.sysmeta)) found.delete(pid);
      return found;
    },
    packagesOf: (pid) => packagesOf(ctx, pid),
    repository: ctx.config.nodeName,
  };
}

function openBytes(ctx: NodeContext, object: StoredObject): Readable {
  const { size } = object.digests;
  if (size <= SMALL_READ_LIMIT && ctx.store.readSmall)
    return Readable.from([ctx.store.readSmall(object.contentKey, size)]);
  return ctx.store.read(object.contentKey, { start: 0, end: size - 1 });
}
