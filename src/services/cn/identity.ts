/** CNIdentity accounts: registerAccount, getSubjectInfo, listSubjects. */
import { IdentifierNotUnique, NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import type { Person, SubjectInfo } from "../../types/index.ts";
import type { CallInfo, NodeContext } from "../context.ts";

const personOf = (json: string, verified: boolean): Person => ({ ...(JSON.parse(json) as Person), verified });

/**
 * CNIdentity.registerAccount: "its subject must equal the certificate subject and not be registered ... A new
 * account needs a later verifyAccount to be verified."
 */
export async function registerAccount(ctx: NodeContext, call: CallInfo, person: Person): Promise<string> {
  if (!call.session.authenticated || person.subject !== call.session.subject) {
    throw new NotAuthorized(
      `The person's subject "${person.subject}" must be the caller's own (${call.session.subject}).`,
    );
  }
  const { verified: _ignored, ...stored } = person;
  if (
    !(await ctx.db.cn.addAccount({
      subject: person.subject,
      person: JSON.stringify(stored),
      verified: false,
    }))
  ) {
    throw new IdentifierNotUnique(`The subject "${person.subject}" is already registered.`);
  }
  return person.subject;
}

/** CNIdentity.getSubjectInfo: "Returns SubjectInfo for a person or group." */
export async function getSubjectInfo(ctx: NodeContext, subject: string): Promise<SubjectInfo> {
  const account = await ctx.db.cn.account(subject);
  if (!account) throw new NotFound(`No account with subject "${subject}" is registered.`);
  return { persons: [personOf(account.person, account.verified)], groups: [] };
}

/**
 * CNIdentity.listSubjects: "case-insensitive substring match against the identifier, givenName, familyName and
 * groupName (union of matches). status: verified is supported. start default 0. count default 100."
 */
export async function listSubjects(
  ctx: NodeContext,
  query: string,
  status: string | undefined,
  start: number,
  count: number,
): Promise<SubjectInfo> {
  const needle = query.toLowerCase();
  const persons = (await ctx.db.cn.accounts())
    .filter((a) => status !== "verified" || a.verified)
    .map((a) => personOf(a.person, a.verified))
    .filter((p) =>
      [p.subject, p.familyName, ...p.givenNames].some((text) => text.toLowerCase().includes(needle)),
    );
  return { persons: persons.slice(start, start + count), groups: [] };
}
