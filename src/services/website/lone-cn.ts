/**
 * The Coordinating Node reads a website (MetacatUI) makes, answered by a Member Node that runs without a CN
 * (no cnBaseUrl), from what it knows itself: the people who signed in here, this node, its formats and objects.
 * A lone node has no groups and no identity mappings, so every SubjectInfo holds persons only.
 */
import type { SignedInPerson } from "../../auth/browser-session-store.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { NotFound } from "../../errors/exceptions.ts";
import type { ObjectLocationList, Person, SubjectInfo } from "../../types/index.ts";
import * as mnRead from "../mn/read.ts";

/** The people records a lone node keeps (signed_in_people); none when sign-in is off. */
export interface PeopleRecords {
  findPerson(subject: string): Promise<SignedInPerson | undefined>;
  findPeople(text: string, start: number, count: number): Promise<SignedInPerson[]>;
}

/** A Person document: "givenName+" and "familyName" must not be empty, so the full name or subject fills in. */
export function personOf(person: SignedInPerson): Person {
  const words = (person.fullName ?? "").trim().split(/\s+/).filter(Boolean);
  const given = person.givenName ?? (words.length > 1 ? words.slice(0, -1).join(" ") : words[0]);
  const family = person.familyName ?? (words.length > 1 ? words[words.length - 1] : undefined);
  return {
    subject: person.subject,
    givenNames: [given ?? person.subject],
    familyName: family ?? person.subject,
    emails: person.email ? [person.email] : [],
    isMemberOf: [],
    equivalentIdentities: [],
    verified: true,
  };
}

/** CNIdentity.getSubjectInfo: "NotFound: the subject is not registered" when nobody with it signed in here. */
export async function subjectInfo(people: PeopleRecords | undefined, subject: string): Promise<SubjectInfo> {
  const person = await people?.findPerson(subject);
  if (!person) throw new NotFound(`Nobody with the subject "${subject}" has signed in at this repository.`);
  return { persons: [personOf(person)], groups: [] };
}

/** CNIdentity.listSubjects: the people whose subject, name or e-mail contains `query` (all of them without). */
export async function listPeople(
  people: PeopleRecords | undefined,
  query: string,
  start: number,
  count: number,
): Promise<SubjectInfo> {
  const found = people ? await people.findPeople(query.trim(), start, count) : [];
  return { persons: found.map(personOf), groups: [] };
}

/** CNDiagnostic.echoCredentials: the caller as this node knows it (its name when it signed in here). */
export async function echoCredentials(
  people: PeopleRecords | undefined,
  call: CallInfo,
): Promise<SubjectInfo> {
  const { subject } = call.session;
  const person = (await people?.findPerson(subject)) ?? { subject, provider: "" };
  return { persons: [personOf(person)], groups: [] };
}

/** CNRead.resolve: the object is here or nowhere. */
export async function resolve(ctx: NodeContext, call: CallInfo, id: string): Promise<ObjectLocationList> {
  const object = await mnRead.readableObject(ctx, call, id);
  const pid = object.sysmeta.identifier;
  const { baseUrl, nodeId } = ctx.config;
  return {
    identifier: pid,
    locations: [
      {
        nodeIdentifier: nodeId,
        baseURL: baseUrl,
        versions: ["v1", "v2"],
        url: `${baseUrl}/v2/object/${encodeURIComponent(pid)}`,
        preference: 100,
      },
    ],
  };
}
