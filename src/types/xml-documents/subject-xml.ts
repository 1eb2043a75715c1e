/**
 * Identity documents (types v1): Person, Group and SubjectInfo.
 * Person: "subject, givenName+, familyName, email*, isMemberOf*, equivalentIdentity*, verified?".
 * Group: "subject, groupName, hasMember*, rightsHolder+". SubjectInfo: "person*, group*".
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { document, type ErrorClass, el, els, NS_V1, optEl, parseXml, type XmlElement } from "../xml.ts";
import {
  expectRoot,
  manyTexts,
  nonEmpty,
  optionalText,
  parseBoolean,
  Reader,
  requiredText,
} from "../xml-read.ts";

export interface Person {
  subject: string;
  givenNames: string[];
  familyName: string;
  emails: string[];
  isMemberOf: string[];
  equivalentIdentities: string[];
  verified?: boolean;
}

export interface Group {
  subject: string;
  groupName: string;
  hasMembers: string[];
  rightsHolders: string[];
}

export interface SubjectInfo {
  persons: Person[];
  groups: Group[];
}

const personContent = (p: Person): string =>
  el("subject", p.subject) +
  els("givenName", p.givenNames) +
  el("familyName", p.familyName) +
  els("email", p.emails) +
  els("isMemberOf", p.isMemberOf) +
  els("equivalentIdentity", p.equivalentIdentities) +
  optEl("verified", p.verified);

const groupContent = (g: Group): string =>
  el("subject", g.subject) +
  el("groupName", g.groupName) +
  els("hasMember", g.hasMembers) +
  els("rightsHolder", g.rightsHolders);

export function serializePerson(person: Person): string {
  return document(NS_V1, "person", "", personContent(person));
}

export function serializeGroup(group: Group): string {
  return document(NS_V1, "group", "", groupContent(group));
}

export function serializeSubjectInfo(info: SubjectInfo): string {
  let content = "";
  for (const p of info.persons) content += `<person>${personContent(p)}</person>`;
  for (const g of info.groups) content += `<group>${groupContent(g)}</group>`;
  return document(NS_V1, "subjectInfo", "", content);
}

export function parsePerson(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Person {
  const root = parseXml(xml, fail);
  expectRoot(root, "person", [NS_V1], fail);
  return readPerson(root, "person", fail);
}

export function parseGroup(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Group {
  const root = parseXml(xml, fail);
  expectRoot(root, "group", [NS_V1], fail);
  return readGroup(root, "group", fail);
}

export function parseSubjectInfo(xml: string | Buffer, fail: ErrorClass = InvalidRequest): SubjectInfo {
  const root = parseXml(xml, fail);
  expectRoot(root, "subjectInfo", [NS_V1], fail);
  const r = new Reader(root, "subjectInfo", ["person", "group"], fail);
  const persons = r.many("person").map((p) => readPerson(p, "subjectInfo/person", fail));
  const groups = r.many("group").map((g) => readGroup(g, "subjectInfo/group", fail));
  r.end();
  return { persons, groups };
}

const PERSON_SEQUENCE = [
  "subject",
  "givenName",
  "familyName",
  "email",
  "isMemberOf",
  "equivalentIdentity",
  "verified",
];

function readPerson(element: XmlElement, path: string, fail: ErrorClass): Person {
  const r = new Reader(element, path, PERSON_SEQUENCE, fail);
  const one = (name: string) => nonEmpty(requiredText(r, name), `${path}/${name}`, fail);
  const many = (name: string, min = 0) =>
    manyTexts(r, name, min).map((v) => nonEmpty(v, `${path}/${name}`, fail));
  const person: Person = {
    subject: one("subject"),
    givenNames: many("givenName", 1),
    familyName: one("familyName"),
    emails: many("email"),
    isMemberOf: many("isMemberOf"),
    equivalentIdentities: many("equivalentIdentity"),
  };
  const verified = optionalText(r, "verified");
  if (verified !== undefined) person.verified = parseBoolean(verified, `${path}/verified`, fail);
  r.end();
  return person;
}

function readGroup(element: XmlElement, path: string, fail: ErrorClass): Group {
  const r = new Reader(element, path, ["subject", "groupName", "hasMember", "rightsHolder"], fail);
  const one = (name: string) => nonEmpty(requiredText(r, name), `${path}/${name}`, fail);
  const many = (name: string, min = 0) =>
    manyTexts(r, name, min).map((v) => nonEmpty(v, `${path}/${name}`, fail));
  const group: Group = {
    subject: one("subject"),
    groupName: one("groupName"),
    hasMembers: many("hasMember"),
    rightsHolders: many("rightsHolder", 1),
  };
  r.end();
  return group;
}
