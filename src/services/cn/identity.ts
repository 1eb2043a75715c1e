/**
 * CNIdentity: accounts (registerAccount, updateAccount, verifyAccount, getSubjectInfo, listSubjects), identity
 * mapping (mapIdentity; the two-step requestMapIdentity -> confirmMapIdentity / denyMapIdentity;
 * getPendingMapIdentity; removeMapIdentity) and groups (createGroup, updateGroup). getSubjectInfo is also the
 * CN's own source for subject expansion (groups and equivalent identities of a session).
 */
import { isTrusted } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { IdentifierNotUnique, InvalidRequest, NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import type { Group, Person, SubjectInfo } from "../../types/index.ts";

const personOf = (json: string, verified: boolean): Person => ({ ...(JSON.parse(json) as Person), verified });
const groupOf = (json: string): Group => JSON.parse(json) as Group;

function requireAuthenticated(call: CallInfo): string {
  if (!call.session.authenticated) {
    throw new NotAuthorized("An anonymous caller has no identity to manage; authenticate first.");
  }
  return call.session.subject;
}

/** A stored Person: equivalent identities and group memberships are kept in their own tables. */
function storedPerson(person: Person): string {
  const { verified: _v, equivalentIdentities: _e, isMemberOf: _m, ...rest } = person;
  return JSON.stringify({ ...rest, equivalentIdentities: [], isMemberOf: [] });
}

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
  if (
    !(await ctx.db.cn.addAccount({ subject: person.subject, person: storedPerson(person), verified: false }))
  ) {
    throw new IdentifierNotUnique(`The subject "${person.subject}" is already registered.`);
  }
  return person.subject;
}

/** CNIdentity.updateAccount: "its subject must match the session certificate and cannot change." */
export async function updateAccount(
  ctx: NodeContext,
  call: CallInfo,
  subject: string,
  person: Person,
): Promise<string> {
  if (person.subject !== subject) {
    throw new InvalidRequest(
      `The person's subject "${person.subject}" differs from "${subject}"; it cannot change.`,
    );
  }
  if (call.session.subject !== subject && !call.session.isAdmin) {
    throw new NotAuthorized(`${call.session.subject} may not update the account of ${subject}.`);
  }
  const account = await ctx.db.cn.account(subject);
  if (!account) throw new NotFound(`No account with subject "${subject}" is registered.`);
  await ctx.db.cn.replaceAccount({ subject, person: storedPerson(person), verified: account.verified });
  return subject;
}

/** CNIdentity.verifyAccount: "Caller must hold an administrative role for the user domain." */
export async function verifyAccount(ctx: NodeContext, call: CallInfo, subject: string): Promise<boolean> {
  if (!isTrusted(call.session)) throw new NotAuthorized(`${call.session.subject} may not verify accounts.`);
  const account = await ctx.db.cn.account(subject);
  if (!account) throw new InvalidRequest(`No account with subject "${subject}" is registered.`);
  await ctx.db.cn.replaceAccount({ ...account, verified: true });
  return true;
}

/** A person with its equivalent identities and group memberships filled in. */
async function fullPerson(ctx: NodeContext, subject: string): Promise<Person | undefined> {
  const account = await ctx.db.cn.account(subject);
  if (!account) return undefined;
  const groups = (await ctx.db.cn.identities.groups()).map((g) => groupOf(g.json));
  return {
    ...personOf(account.person, account.verified),
    equivalentIdentities: await ctx.db.cn.identities.equivalents(subject),
    isMemberOf: groups.filter((g) => g.hasMembers.includes(subject)).map((g) => g.subject),
  };
}

/**
 * CNIdentity.getSubjectInfo: "Returns SubjectInfo for a person or group." For a person: the person, the persons
 * equivalent to it (transitively), and the groups any of them belongs to.
 */
export async function getSubjectInfo(ctx: NodeContext, subject: string): Promise<SubjectInfo> {
  const group = await ctx.db.cn.identities.group(subject);
  if (group) return { persons: [], groups: [groupOf(group.json)] };
  const first = await fullPerson(ctx, subject);
  if (!first) throw new NotFound(`No account or group with subject "${subject}" is registered.`);
  const persons = [first];
  const seen = new Set([subject]);
  for (let i = 0; i < persons.length; i++) {
    for (const equivalent of (persons[i] as Person).equivalentIdentities) {
      if (seen.has(equivalent)) continue;
      seen.add(equivalent);
      const person = await fullPerson(ctx, equivalent);
      if (person) persons.push(person);
    }
  }
  const groups = (await ctx.db.cn.identities.groups())
    .map((g) => groupOf(g.json))
    .filter((g) => g.hasMembers.some((m) => seen.has(m)));
  return { persons, groups };
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
  if (status !== undefined && status !== "" && status !== "verified") {
    throw new InvalidRequest(`status "${status}" is not supported; use verified.`);
  }
  const needle = query.toLowerCase();
  const matches = (texts: string[]) => texts.some((text) => text.toLowerCase().includes(needle));
  const persons = (await ctx.db.cn.accounts())
    .filter((a) => status !== "verified" || a.verified)
    .map((a) => personOf(a.person, a.verified))
    .filter((p) => matches([p.subject, p.familyName, ...p.givenNames]));
  const groups =
    status === "verified"
      ? []
      : (await ctx.db.cn.identities.groups())
          .map((g) => groupOf(g.json))
          .filter((g) => matches([g.subject, g.groupName]));
  const all: ({ person: Person } | { group: Group })[] = [
    ...persons.map((person) => ({ person })),
    ...groups.map((group) => ({ group })),
  ].slice(start, start + count);
  return {
    persons: all.flatMap((e) => ("person" in e ? [e.person] : [])),
    groups: all.flatMap((e) => ("group" in e ? [e.group] : [])),
  };
}

async function requireAccount(ctx: NodeContext, subject: string): Promise<void> {
  if (!(await ctx.db.cn.account(subject)))
    throw new NotFound(`No account with subject "${subject}" is registered.`);
}

function requireDifferent(a: string, b: string): void {
  if (a === b) throw new IdentifierNotUnique(`A subject cannot be mapped to itself ("${a}").`);
}

/** CNIdentity.mapIdentity: "Creates a mapping directly; needs explicit authorization" (administrators, CNs). */
export async function mapIdentity(
  ctx: NodeContext,
  call: CallInfo,
  primary: string | undefined,
  secondary: string | undefined,
): Promise<boolean> {
  if (!isTrusted(call.session))
    throw new NotAuthorized(`${call.session.subject} may not map identities directly.`);
  if (!primary || !secondary)
    throw new InvalidRequest("The parts primarySubject and secondarySubject are required.");
  requireDifferent(primary, secondary);
  await requireAccount(ctx, primary);
  await requireAccount(ctx, secondary);
  if (!(await ctx.db.cn.identities.addEquivalence(primary, secondary))) {
    throw new IdentifierNotUnique(`"${primary}" and "${secondary}" are already mapped.`);
  }
  return true;
}

/** CNIdentity.requestMapIdentity: "Step one of a two-step mapping": the caller asks to be mapped to `subject`. */
export async function requestMapIdentity(
  ctx: NodeContext,
  call: CallInfo,
  subject: string | undefined,
): Promise<boolean> {
  const caller = requireAuthenticated(call);
  if (!subject) throw new InvalidRequest("The subject part is required.");
  requireDifferent(caller, subject);
  await requireAccount(ctx, caller);
  await requireAccount(ctx, subject);
  if ((await ctx.db.cn.identities.equivalents(caller)).includes(subject)) {
    throw new IdentifierNotUnique(`"${caller}" and "${subject}" are already mapped.`);
  }
  if (!(await ctx.db.cn.identities.addPendingMap(caller, subject))) {
    throw new IdentifierNotUnique(`A mapping request from "${caller}" to "${subject}" is already pending.`);
  }
  return true;
}

/** CNIdentity.confirmMapIdentity: "Called by the secondary subject"; NotFound when the mapping was not started. */
export async function confirmMapIdentity(
  ctx: NodeContext,
  call: CallInfo,
  subject: string,
): Promise<boolean> {
  const caller = requireAuthenticated(call);
  if (!(await ctx.db.cn.identities.removePendingMap(subject, caller))) {
    throw new NotFound(`"${subject}" has no pending request to be mapped to ${caller}.`);
  }
  await ctx.db.cn.identities.addEquivalence(subject, caller);
  return true;
}

/** CNIdentity.denyMapIdentity: the secondary subject refuses a pending request. */
export async function denyMapIdentity(ctx: NodeContext, call: CallInfo, subject: string): Promise<boolean> {
  const caller = requireAuthenticated(call);
  if (!(await ctx.db.cn.identities.removePendingMap(subject, caller))) {
    throw new NotFound(`"${subject}" has no pending request to be mapped to ${caller}.`);
  }
  return true;
}

/** CNIdentity.getPendingMapIdentity: the persons waiting to be mapped to `subject` (its own or a trusted caller). */
export async function getPendingMapIdentity(
  ctx: NodeContext,
  call: CallInfo,
  subject: string,
): Promise<SubjectInfo> {
  if (!call.session.subjects.has(subject) && !isTrusted(call.session)) {
    throw new NotAuthorized(`${call.session.subject} may not see the pending requests of ${subject}.`);
  }
  await requireAccount(ctx, subject);
  const persons: Person[] = [];
  for (const requester of await ctx.db.cn.identities.pendingFor(subject)) {
    const person = await fullPerson(ctx, requester);
    if (person) persons.push(person);
  }
  return { persons, groups: [] };
}

/** CNIdentity.removeMapIdentity: "Removes the mapping and its reciprocal entry." */
export async function removeMapIdentity(ctx: NodeContext, call: CallInfo, subject: string): Promise<boolean> {
  const caller = requireAuthenticated(call);
  if (!(await ctx.db.cn.identities.removeEquivalence(caller, subject))) {
    throw new NotFound(`${caller} is not mapped to "${subject}".`);
  }
  return true;
}

/** CNIdentity.createGroup: "Group names are unique." The caller becomes a rights holder of the group. */
export async function createGroup(ctx: NodeContext, call: CallInfo, group: Group): Promise<string> {
  const caller = requireAuthenticated(call);
  const rightsHolders = group.rightsHolders.includes(caller)
    ? group.rightsHolders
    : [...group.rightsHolders, caller];
  const stored: Group = { ...group, rightsHolders };
  if (await ctx.db.cn.account(group.subject)) {
    throw new IdentifierNotUnique(`"${group.subject}" is a person's subject.`);
  }
  const added = await ctx.db.cn.identities.addGroup({
    subject: group.subject,
    groupName: group.groupName,
    json: JSON.stringify(stored),
  });
  if (!added)
    throw new IdentifierNotUnique(`A group "${group.subject}" or named "${group.groupName}" exists.`);
  return group.subject;
}

/**
 * CNIdentity.updateGroup: "the given member list replaces the membership; group name cannot change; only the
 * creator may modify" (its rights holders, and administrators).
 */
export async function updateGroup(ctx: NodeContext, call: CallInfo, group: Group): Promise<boolean> {
  const row = await ctx.db.cn.identities.group(group.subject);
  if (!row) throw new NotFound(`No group "${group.subject}" exists.`);
  const current = groupOf(row.json);
  if (!current.rightsHolders.some((s) => call.session.subjects.has(s)) && !call.session.isAdmin) {
    throw new NotAuthorized(`${call.session.subject} is not a rights holder of group "${group.subject}".`);
  }
  if (group.groupName !== current.groupName) {
    throw new InvalidRequest(
      `The group name cannot change ("${current.groupName}" -> "${group.groupName}").`,
    );
  }
  const rightsHolders = group.rightsHolders.length > 0 ? group.rightsHolders : current.rightsHolders;
  await ctx.db.cn.identities.replaceGroup({
    subject: group.subject,
    groupName: current.groupName,
    json: JSON.stringify({ ...current, hasMembers: group.hasMembers, rightsHolders }),
  });
  return true;
}
