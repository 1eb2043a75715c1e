/**
 * Making, listing and revoking reviewer links. Only the rights holder of the addressed object (a subject of the
 * caller's session) or a node administrator may make or revoke one; a link addresses a resource map (the
 * package) or a metadata document (with the package that aggregates it, when the same rights holder holds one).
 * It ends at its expiry (at most MAX_LIFETIME_DAYS away; DEFAULT_LIFETIME_DAYS when none is asked for).
 */
import type { ReviewLinkRecord } from "../../../auth/review-link-store.ts";
import { newReviewToken, secretHashOf } from "../../../auth/review-tokens.ts";
import type { Session } from "../../../auth/session.ts";
import { isSymbolicSubject } from "../../../auth/subjects.ts";
import type { CallInfo, NodeContext } from "../../../context/node-context.ts";
import { InvalidRequest, NotAuthorized, NotFound } from "../../../errors/exceptions.ts";
import { isResourceMapFormat } from "../../../ore/index.ts";
import type { StoredObject } from "../../../types/stored-object.ts";
import { findByPidOrSid } from "../../shared/resolve.ts";
import { packagesOf } from "../packages-of.ts";
import { isEmlFormat } from "./anonymise.ts";
import { reviewScope } from "./scope.ts";

export const DEFAULT_LIFETIME_DAYS = 30;
export const MAX_LIFETIME_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_LABEL_LENGTH = 200;

export interface NewReviewLink {
  pid: string;
  /** When the link ends; default DEFAULT_LIFETIME_DAYS from now. */
  expires?: Date | undefined;
  anonymise?: boolean | undefined;
  label?: string | undefined;
}

/** A link as its owner sees it (the secret never again after creation). */
export type ReviewLinkView = ReviewLinkRecord & { active: boolean };

export async function createReviewLink(
  ctx: NodeContext,
  call: CallInfo,
  request: NewReviewLink,
): Promise<{ link: ReviewLinkView; token: string }> {
  const { session } = call;
  if (!session.authenticated) throw new NotAuthorized("Sign in to make a reviewer link.");
  const object = await ownedObject(ctx, session, request.pid);
  const { sysmeta } = object;
  const now = Date.now();
  const expiresAt = request.expires?.getTime() ?? now + DEFAULT_LIFETIME_DAYS * DAY_MS;
  if (!Number.isFinite(expiresAt) || expiresAt <= now || expiresAt > now + MAX_LIFETIME_DAYS * DAY_MS) {
    throw new InvalidRequest(`The expiry must be in the future and at most ${MAX_LIFETIME_DAYS} days away.`);
  }
  const label = request.label?.trim();
  if (label !== undefined && label.length > MAX_LABEL_LENGTH)
    throw new InvalidRequest(`The label is longer than ${MAX_LABEL_LENGTH} characters.`);
  const packagePid = await packageOf(ctx, object);
  const { id, secret, token } = newReviewToken();
  const link: ReviewLinkRecord = {
    id,
    pid: sysmeta.identifier,
    packagePid,
    rightsHolder: sysmeta.rightsHolder,
    createdBy: session.subject,
    anonymise: request.anonymise === true,
    label: label === "" ? undefined : label,
    createdAt: now,
    expiresAt,
    revokedAt: undefined,
  };
  if (link.anonymise) await refuseUnanonymisable(ctx, link);
  await ctx.db.reviewLinks.create(link, secretHashOf(secret));
  return { link: { ...link, active: true }, token };
}

/** The links of the caller's datasets (every link for an administrator), of one pid when given. */
export async function listReviewLinks(
  ctx: NodeContext,
  call: CallInfo,
  pid: string | undefined,
): Promise<ReviewLinkView[]> {
  const { session } = call;
  if (!session.authenticated) throw new NotAuthorized("Sign in to list your reviewer links.");
  const rightsHolders = session.isAdmin
    ? undefined
    : [...session.subjects].filter((s) => !isSymbolicSubject(s));
  const now = Date.now();
  const links = await ctx.db.reviewLinks.list({ pid, rightsHolders });
  return links.map((link) => ({ ...link, active: isActive(link, now) }));
}

export async function revokeReviewLink(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
): Promise<ReviewLinkView> {
  const { session } = call;
  if (!session.authenticated) throw new NotAuthorized("Sign in to revoke a reviewer link.");
  const found = await ctx.db.reviewLinks.find(id);
  // Someone else's link is answered as an unknown one: ids are not confirmed to those who do not own them.
  if (!found || !holdsRights(session, found.link.rightsHolder))
    throw new NotFound(`There is no reviewer link "${id}" of yours.`);
  const now = Date.now();
  await ctx.db.reviewLinks.revoke(id, now);
  const link = { ...found.link, revokedAt: found.link.revokedAt ?? now };
  return { ...link, active: false };
}

/** The rights holder (never a symbolic subject such as public: that names nobody) or an administrator. */
function holdsRights(session: Session, rightsHolder: string): boolean {
  return session.isAdmin || (!isSymbolicSubject(rightsHolder) && session.subjects.has(rightsHolder));
}

export function isActive(link: ReviewLinkRecord, now: number): boolean {
  return link.revokedAt === undefined && now < link.expiresAt;
}

async function ownedObject(ctx: NodeContext, session: Session, pid: string): Promise<StoredObject> {
  if (pid === "")
    throw new InvalidRequest("Name the pid of the package (resource map) or metadata document.");
  const object = await findByPidOrSid(ctx, pid);
  const { sysmeta } = object;
  if (!holdsRights(session, sysmeta.rightsHolder)) {
    throw new NotAuthorized(
      `Only the rights holder of "${sysmeta.identifier}" or a node administrator may make a reviewer link to it.`,
      { pid },
    );
  }
  const isMetadata = ctx.formats.get(sysmeta.formatId)?.formatType === "METADATA";
  if (!isResourceMapFormat(sysmeta.formatId) && !isMetadata) {
    throw new InvalidRequest(
      `"${sysmeta.identifier}" is a data object: a reviewer link addresses a package (its resource map) or its metadata document.`,
      { pid },
    );
  }
  return object;
}

/** The package a link opens: the resource map itself, or the first current one of the same rights holder aggregating the metadata. */
async function packageOf(ctx: NodeContext, object: StoredObject): Promise<string | undefined> {
  const { identifier, formatId, rightsHolder } = object.sysmeta;
  if (isResourceMapFormat(formatId)) return identifier;
  const maps = await ctx.db.objects.getMany(await packagesOf(ctx, identifier));
  for (const map of maps.values())
    if (map.sysmeta.rightsHolder === rightsHolder && !map.sysmeta.obsoletedBy) return map.sysmeta.identifier;
  return undefined;
}

async function refuseUnanonymisable(ctx: NodeContext, link: ReviewLinkRecord): Promise<void> {
  // The scope as a plain link would open it: the anonymised one already leaves such metadata out.
  const scope = await reviewScope(ctx, { ...link, anonymise: false });
  for (const object of scope.objects.values()) {
    const { formatId, identifier } = object.sysmeta;
    if (ctx.formats.get(formatId)?.formatType === "METADATA" && !isEmlFormat(formatId)) {
      throw new InvalidRequest(
        `"${identifier}" is ${formatId} metadata: names can be hidden from EML documents only, so this link cannot be anonymised.`,
        { pid: link.pid },
      );
    }
  }
}
