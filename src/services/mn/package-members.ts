/**
 * The package rule of client writes: a resource map (an OAI-ORE format, src/ore/formats.ts) is created or updated only once
 * every object it aggregates is on this node, so that a package is never a map pointing at nothing. A client
 * creates the data and metadata objects first and the map last (docs/deployment.md, "Data packages"); a map sent
 * too early is refused with InvalidRequest naming what is missing, and nothing is stored. The `packageMembers`
 * setting `anywhere` lets maps aggregate objects held elsewhere. Replication, import and harvest copy a map as it
 * is and do not come through here.
 */
import type { Readable } from "node:stream";
import type { NodeContext } from "../../context/node-context.ts";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { isResourceMapFormat, parseResourceMap, ResourceMapError } from "../../ore/index.ts";
import type { StagedObject } from "../../store/types.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { MAX_RESOURCE_MAP_BYTES, named } from "./package.ts";

/** Whether a client write of `sysmeta` is checked (a resource map, on a node whose packageMembers is local). */
function needsMembersHeld(ctx: NodeContext, sysmeta: SystemMetadata): boolean {
  return ctx.config.packageMembers === "local" && isResourceMapFormat(sysmeta.formatId);
}

/**
 * MNStorage.create / update of a resource map (when `needsMembersHeld`): "InvalidRequest" (1102 / 1202) when its
 * bytes are not a readable resource map or when some object it aggregates is not on this node, naming them. Read
 * from the staged bytes, before they are committed: a refused map leaves nothing behind, and a resumable upload
 * it came from stays for the retry.
 */
export async function requireMembersHeld(
  ctx: NodeContext,
  sysmeta: SystemMetadata,
  staged: StagedObject,
): Promise<void> {
  if (!needsMembersHeld(ctx, sysmeta)) return;
  const pid = sysmeta.identifier;
  const bytes = staged.held ?? staged.read();
  const members = (await membersOf(sysmeta, bytes)).filter((id) => id !== pid);
  const held = await ctx.db.objects.getMany(members);
  const missing = members.filter((id) => !held.has(id));
  if (missing.length) {
    throw new InvalidRequest(
      `The resource map "${pid}" aggregates ${missing.length} object(s) this node does not hold: ${named(missing)}. ` +
        "Create the data and metadata objects first and the resource map last.",
      { pid },
    );
  }
}

async function membersOf(sysmeta: SystemMetadata, bytes: Buffer | Readable): Promise<string[]> {
  try {
    return (await parseResourceMap(bytes, { maxBytes: MAX_RESOURCE_MAP_BYTES })).members;
  } catch (error) {
    if (!(error instanceof ResourceMapError)) throw error;
    const pid = sysmeta.identifier;
    throw new InvalidRequest(
      `"${pid}" has the resource map format ${sysmeta.formatId} but is not a readable resource map: ${error.message}`,
      { pid },
    );
  }
}
