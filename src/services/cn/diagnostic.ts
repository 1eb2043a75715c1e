/**
 * CNDiagnostic: echoCredentials (the session as SubjectInfo), echoSystemMetadata (the create rules without
 * storing anything); echoIndexedObject is in echo-indexed.ts.
 */
import { AUTHENTICATED_USER, PUBLIC, VERIFIED_USER } from "../../auth/subjects.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { IdentifierNotUnique } from "../../errors/exceptions.ts";
import type { Person, SubjectInfo, SystemMetadata } from "../../types/index.ts";
import { checkIncoming, checkSeriesId } from "../shared/sysmeta-rules.ts";
import { getSubjectInfo } from "./identity.ts";
import { isIdentifierTaken } from "./reservations.ts";

const SYMBOLIC = new Set([PUBLIC, AUTHENTICATED_USER, VERIFIED_USER]);

/**
 * echoCredentials: "Returns SubjectInfo parsed from the session (persons, equivalent identities, groups)". The
 * caller's registered SubjectInfo when it has an account; otherwise a person record made from the session alone
 * (its names are the subject itself, which the schema requires to be non-empty).
 */
export async function echoCredentials(ctx: NodeContext, call: CallInfo): Promise<SubjectInfo> {
  const { subject, subjects } = call.session;
  if (await ctx.db.cn.account(subject)) return getSubjectInfo(ctx, subject);
  const others = [...subjects].filter((s) => s !== subject && !SYMBOLIC.has(s));
  const person: Person = {
    subject,
    givenNames: [subject],
    familyName: subject,
    emails: [],
    isMemberOf: [],
    equivalentIdentities: others,
    verified: subjects.has(VERIFIED_USER),
  };
  return { persons: [person], groups: [] };
}

/** echoSystemMetadata: "Returns a copy of the system metadata with 200 when it parses, otherwise an exception." */
export async function echoSystemMetadata(ctx: NodeContext, sysmeta: SystemMetadata): Promise<SystemMetadata> {
  const pid = sysmeta.identifier;
  checkIncoming(ctx, pid, sysmeta);
  if (await isIdentifierTaken(ctx, pid)) {
    throw new IdentifierNotUnique(`The identifier "${pid}" is already in use.`, { pid });
  }
  await checkSeriesId(ctx.db.objects, sysmeta);
  return sysmeta;
}
