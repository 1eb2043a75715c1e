/**
 * Reads through a reviewer link: the landing page, one object's bytes, the package as a bag. Each request checks
 * the link anew in the database (secret, expiry, revocation, the addressed object's rights holder), so a revoked
 * link stops at once in every serving process. The caller's own credentials play no part: each read is made and
 * logged as `reviewLink:<id>`, a subject no access policy names, so nothing outside the link's scope opens.
 */
import { Readable } from "node:stream";
import type { ReviewLinkRecord } from "../../../auth/review-link-store.ts";
import { parseReviewToken, secretMatches } from "../../../auth/review-tokens.ts";
import type { Session } from "../../../auth/session.ts";
import type { CallInfo, NodeContext } from "../../../context/node-context.ts";
import { NotFound, ServiceFailure } from "../../../errors/exceptions.ts";
import { writeBag } from "../../../packages/bag.ts";
import { safeFileName } from "../../../packages/names.ts";
import { BAGIT_097, type BagPlan } from "../../../packages/types.ts";
import { serializeSystemMetadata } from "../../../types/index.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import { buildViewModel, type ViewSources } from "../../../views/build.ts";
import { html } from "../../../views/html.ts";
import type { ViewLinks } from "../../../views/model.ts";
import { renderDefaultPage } from "../../../views/render/default-theme.ts";
import { logEvent } from "../../shared/events.ts";
import { withDigest } from "../stored-digest.ts";
import { isActive } from "./links.ts";
import { type Presented, presentScope } from "./present.ts";
import { invalidLink, openStored, type ReviewScope, reviewScope } from "./scope.ts";

export const REVIEW_SUBJECT_PREFIX = "reviewLink:";

/** The page's own word, beside the response headers: send no Referer (the token is in its URL), do not index. */
const PAGE_HEAD = html`<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex, nofollow">`;

export interface OpenedLink {
  link: ReviewLinkRecord;
  scope: ReviewScope;
  shown: Map<string, Presented>;
  /** The request as the link makes it: for the event log. */
  call: CallInfo;
}

/** The link a token opens, checked now; NotAuthorized, the same for every reason, when it opens nothing. */
export async function openReviewLink(ctx: NodeContext, call: CallInfo, token: string): Promise<OpenedLink> {
  const parts = parseReviewToken(token);
  const found = parts ? await ctx.db.reviewLinks.find(parts.id) : undefined;
  if (!parts || !found || !secretMatches(parts.secret, found.secretHash) || !isActive(found.link, Date.now()))
    throw invalidLink();
  const { link } = found;
  const scope = await reviewScope(ctx, link);
  const shown = await presentScope(ctx, link, scope);
  return { link, scope, shown, call: { ...call, session: linkSession(link) } };
}

function linkSession(link: ReviewLinkRecord): Session {
  const subject = `${REVIEW_SUBJECT_PREFIX}${link.id}`;
  return { subject, subjects: new Set([subject]), authenticated: false, isAdmin: false, isCn: false };
}

/**
 * The landing page of the link's dataset, its links leading only to what the link opens. `read`: the page is
 * shown (logged as a read of its metadata); false for a HEAD, which asks only what the page would be.
 */
export async function reviewPage(
  ctx: NodeContext,
  opened: OpenedLink,
  links: ViewLinks,
  read = true,
): Promise<string> {
  const page = shownObject(opened, opened.scope.page.sysmeta.identifier);
  const sources: ViewSources = {
    format: (formatId) => ctx.formats.get(formatId),
    open: (object) => bytesOf(ctx, opened, object.sysmeta.identifier),
    readable: async (pid) => opened.shown.get(pid)?.object,
    readableMany: async (pids) => {
      const found = new Map<string, StoredObject>();
      for (const pid of pids) {
        const object = opened.shown.get(pid)?.object;
        if (object) found.set(pid, object);
      }
      return found;
    },
    packagesOf: async () => (opened.scope.map ? [opened.scope.map.sysmeta.identifier] : []),
    repository: ctx.config.nodeName,
  };
  const built = await buildViewModel(sources, page);
  // Members outside the link's scope (another rights holder's) are not even named.
  const packages = built.packages.map((p) => ({
    ...p,
    members: p.members.filter((m) => opened.scope.objects.has(m.id)),
  }));
  const model = { ...built, packages };
  if (read) logEvent(ctx, opened.call, page.sysmeta.identifier, "read");
  return renderDefaultPage(model, links, PAGE_HEAD);
}

/** One object of the link's dataset (not its resource map: that travels in the bag). */
export function reviewObject(
  ctx: NodeContext,
  opened: OpenedLink,
  pid: string,
): { shown: Presented; body: Readable } {
  const shown = describeReviewObject(opened, pid);
  logEvent(ctx, opened.call, pid, "read");
  return { shown, body: bytesOf(ctx, opened, pid) };
}

/** The object as reviewObject would give it, without its bytes and without logging a read (HEAD). */
export function describeReviewObject(opened: OpenedLink, pid: string): Presented {
  if (!opened.scope.objects.has(pid))
    throw new NotFound(`"${pid}" is not part of the dataset this reviewer link opens.`, { pid });
  return opened.shown.get(pid) as Presented;
}

/** The package as a BagIt 0.97 bag of what the link opens, presented as the link shows it. */
export async function reviewPackage(
  ctx: NodeContext,
  opened: OpenedLink,
): Promise<{ fileName: string; body: Readable }> {
  const { scope } = opened;
  const { fileName } = await describeReviewPackage(ctx, opened);
  if (!scope.map) throw new NotFound("This reviewer link opens a metadata document that is in no package.");
  const members: Presented[] = [];
  for (const pid of scope.objects.keys()) members.push(opened.shown.get(pid) as Presented);
  const withMd5 = async (p: Presented) =>
    p.bytes
      ? p.object
      : { ...p.object, digests: (await withDigest(ctx, original(opened, p), "md5")).digests };
  const map = opened.shown.get(scope.map.sysmeta.identifier) as Presented;
  const placed = await Promise.all(
    members.map(async (m) => ({
      object: await withMd5(m),
      path: `data/${m.fileName}`,
      sysmetaPath: `metadata/sysmeta/${m.fileName}.xml`,
    })),
  );
  const plan: BagPlan = {
    type: BAGIT_097,
    packageId: scope.map.sysmeta.identifier,
    resourceMap: await withMd5(map),
    members: placed,
    documents: scope.documents.filter((d) => scope.objects.has(d.metadata) && scope.objects.has(d.data)),
    baggedAt: new Date(),
  };
  logEvent(ctx, opened.call, scope.map.sysmeta.identifier, "read");
  for (const m of members) logEvent(ctx, opened.call, m.object.sysmeta.identifier, "read");
  const body = writeBag(
    plan,
    {
      open: (object) => bytesOf(ctx, opened, object.sysmeta.identifier),
      sysmetaXml: (object) => serializeSystemMetadata(object.sysmeta, "v2"),
    },
    ctx.config.nodeId,
  );
  return { fileName, body };
}

/** The package's bag as reviewPackage would give it, checked but not built and no read logged (HEAD). */
export async function describeReviewPackage(
  ctx: NodeContext,
  opened: OpenedLink,
): Promise<{ fileName: string }> {
  const { scope, link } = opened;
  if (!scope.map) throw new NotFound("This reviewer link opens a metadata document that is in no package.");
  const present = await Promise.all(
    [scope.map, ...scope.objects.values()].map((o) => ctx.store.has(o.contentKey)),
  );
  if (present.includes(false))
    throw new ServiceFailure("Some bytes of this package are missing from the node's store.");
  return { fileName: link.anonymise ? "dataset.zip" : `${safeFileName(scope.map.sysmeta.identifier)}.zip` };
}

function shownObject(opened: OpenedLink, pid: string): StoredObject {
  return (opened.shown.get(pid) as Presented).object;
}

function original(opened: OpenedLink, p: Presented): StoredObject {
  const pid = p.object.sysmeta.identifier;
  return (opened.scope.objects.get(pid) ?? opened.scope.map) as StoredObject;
}

function bytesOf(ctx: NodeContext, opened: OpenedLink, pid: string): Readable {
  const shown = opened.shown.get(pid);
  if (shown?.bytes) return Readable.from([shown.bytes]);
  return openStored(ctx, original(opened, shown as Presented));
}
