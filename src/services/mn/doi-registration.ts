/**
 * The doi-registration task (key: the PID): makes DataCite hold what the node holds for one of its DOIs. Idempotent
 * (`PUT /dois/{doi}` upserts), so a run repeated after a crash or a lost lease registers nothing twice.
 *
 * - The object is gone: a draft is deleted; a registered or findable DOI is kept ("a DOI is never deleted").
 * - Publicly readable: the record and landing page are sent with the event "publish" (findable).
 * - Not public: the record is sent without an event (a new DOI stays a draft); one that was findable is hidden
 *   (registered: it keeps resolving, and leaves DataCite's search).
 *
 * DataCite down, slow, 429 or 5xx: retried with backoff (not before a Retry-After). A refusal (422: the record
 * fails DataCite's checks; other 4xx) is logged with DataCite's errors and kept as a dead task, not retried.
 */
import type { NodeContext } from "../../context/node-context.ts";
import {
  type DataciteClient,
  DataciteRejected,
  DataciteUnavailable,
  dataciteClient,
} from "../../doi/datacite-client.ts";
import { landingPageOf, nodeDoiOf } from "../../doi/identifiers.ts";
import { RetryLater } from "../../tasks/failure-log.ts";
import { PermanentTaskError, RetryNotBefore, type Task } from "../../tasks/worker.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { dataciteXmlOfObject } from "./datacite-records.ts";

const clients = new WeakMap<object, DataciteClient>();

function clientOf(ctx: NodeContext): DataciteClient {
  let client = clients.get(ctx.config);
  if (!client) {
    const clock = ctx.clock;
    client = dataciteClient(ctx.config, clock ? () => clock.now() : Date.now);
    clients.set(ctx.config, client);
  }
  return client;
}

/** Anyone may read it: the only objects whose DOI becomes findable. */
export function isPublic(sysmeta: SystemMetadata): boolean {
  return sysmeta.accessPolicy.some((rule) => rule.subjects.includes("public"));
}

async function bringUpToDate(
  ctx: NodeContext,
  client: DataciteClient,
  pid: string,
  doi: string,
): Promise<void> {
  const object = await ctx.db.objects.get(pid);
  if (!object) {
    const held = await client.get(doi);
    if (held?.state === "draft") await client.deleteDraft(doi);
    return;
  }
  if (object.isReplica) return; // the authoritative node registers its DOIs
  const xml = await dataciteXmlOfObject(ctx, object, pid);
  const url = landingPageOf(ctx.config, pid);
  if (isPublic(object.sysmeta)) {
    await client.put(doi, xml, url, "publish");
    return;
  }
  const held = await client.get(doi);
  await client.put(doi, xml, url, held?.state === "findable" ? "hide" : undefined);
}

export async function runDoiRegistration(ctx: NodeContext, task: Task): Promise<void> {
  const doi = nodeDoiOf(ctx.config, task.key);
  if (!doi || !ctx.config.dataciteRepository) return; // DOIs turned off since it was queued
  try {
    await bringUpToDate(ctx, clientOf(ctx), task.key, doi);
  } catch (error) {
    if (error instanceof DataciteRejected) {
      ctx.log.error(
        { task: task.kind, key: task.key, errors: error.errors },
        `DOI ${doi} not registered: ${error.message}`,
      );
      throw new PermanentTaskError(`DOI ${doi}: ${error.message}`);
    }
    if (error instanceof DataciteUnavailable) {
      if (error.retryAt) throw new RetryNotBefore(error.message, error.retryAt);
      throw new RetryLater(error.message);
    }
    throw error;
  }
}
