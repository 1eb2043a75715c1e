/**
 * A landing page's record (src/landing/record.ts): the object's view model (with its usage counts), its place
 * in its obsolescence chain and the node that holds it. Reading it logs a read event, as MNView.view does.
 */

import { isAllowed } from "../../auth/access.ts";
import { anonymousSession } from "../../auth/session.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { LandingRecord } from "../../landing/record.ts";
import type { LandingUrls } from "../../landing/urls.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { buildViewModel } from "../../views/build.ts";
import { logEvent } from "../shared/events.ts";
import { usageSummary } from "../usage/usage-summary.ts";
import { readableObject } from "./read.ts";
import { memberNodeSources } from "./view.ts";

/** A chain longer than this is counted no further (a version number is then a lower bound). */
const MAX_CHAIN_STEPS = 1000;

export async function landingRecord(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  urls: LandingUrls,
): Promise<{ object: StoredObject; record: LandingRecord }> {
  const object = await readableObject(ctx, call, id);
  const { sysmeta } = object;
  const model = await buildViewModel(memberNodeSources(ctx, call), object);
  model.usage = await usageSummary(ctx, object);
  const format = ctx.formats.get(sysmeta.formatId);
  logEvent(ctx, call, sysmeta.identifier, "read");
  const record: LandingRecord = {
    model,
    version: {
      number: await versionNumber(ctx, object),
      ...(sysmeta.obsoletes ? { previous: sysmeta.obsoletes } : {}),
      ...(sysmeta.obsoletedBy ? { next: sysmeta.obsoletedBy } : {}),
    },
    node: { id: ctx.config.nodeId, name: ctx.config.nodeName, description: ctx.config.nodeDescription },
    urls,
    mediaType: sysmeta.mediaType?.name ?? format?.mediaType?.name ?? "application/octet-stream",
    isPublic: isAllowed(anonymousSession(), "read", sysmeta),
  };
  return { object, record };
}

/** 1 for an object that obsoletes nothing; each object it obsoletes, held here, adds one. */
async function versionNumber(ctx: NodeContext, object: StoredObject): Promise<number> {
  let number = 1;
  let previous = object.sysmeta.obsoletes;
  const seen = new Set([object.sysmeta.identifier]);
  while (previous && !seen.has(previous) && number <= MAX_CHAIN_STEPS) {
    seen.add(previous);
    const older = await ctx.db.objects.get(previous);
    if (!older) break;
    number += 1;
    previous = older.sysmeta.obsoletes;
  }
  return number;
}
