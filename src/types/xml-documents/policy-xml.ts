/**
 * AccessPolicy, ReplicationPolicy and Replica (types v1): the parts of SystemMetadata that are also sent as
 * documents of their own (CNAuthorization.setAccessPolicy, CNReplication.setReplicationPolicy and
 * updateReplicationMetadata).
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import {
  type AccessRule,
  PERMISSIONS,
  type Permission,
  REPLICATION_STATUSES,
  type Replica,
  type ReplicationPolicy,
} from "../sysmeta.ts";
import {
  attr,
  dateEl,
  document,
  type ErrorClass,
  els,
  escapeText,
  NS_V1,
  parseXml,
  type XmlElement,
} from "../xml.ts";
import {
  expectRoot,
  INT_MAX,
  INT_MIN,
  manyTexts,
  nonEmpty,
  parseBoolean,
  parseDate,
  parseEnum,
  parseInteger,
  Reader,
  requiredText,
} from "../xml-read.ts";

/** The `<allow>` rules of an accessPolicy element; rules without a subject or a permission are left out. */
export function accessPolicyContent(rules: readonly AccessRule[]): string {
  let out = "";
  for (const rule of rules) {
    if (rule.subjects.length === 0 || rule.permissions.length === 0) continue;
    out += `<allow>${els("subject", rule.subjects)}${els("permission", rule.permissions)}</allow>`;
  }
  return out;
}

/** A v1 `accessPolicy` document. AccessPolicy: "allow ... minOccurs=1", so at least one rule is needed. */
export function serializeAccessPolicy(rules: readonly AccessRule[]): string {
  const content = accessPolicyContent(rules);
  if (content === "")
    throw new RangeError("An accessPolicy needs at least one rule with a subject and a permission.");
  return document(NS_V1, "accessPolicy", "", content);
}

export function parseAccessPolicy(xml: string | Buffer, fail: ErrorClass = InvalidRequest): AccessRule[] {
  const root = parseXml(xml, fail);
  expectRoot(root, "accessPolicy", [NS_V1], fail);
  return readAccessPolicy(root, "accessPolicy", fail);
}

export function readAccessPolicy(element: XmlElement, path: string, fail: ErrorClass): AccessRule[] {
  const reader = new Reader(element, path, ["allow"], fail);
  const rules = reader.many("allow", 1).map((allow) => {
    const rulePath = `${path}/allow`;
    const rule = new Reader(allow, rulePath, ["subject", "permission"], fail);
    // AccessRule: "subject minOccurs=1 maxOccurs=unbounded", then "permission minOccurs=1 maxOccurs=unbounded".
    const subjects = manyTexts(rule, "subject", 1).map((s) => nonEmpty(s, `${rulePath}/subject`, fail));
    const permissions = manyTexts(rule, "permission", 1).map((p) =>
      parseEnum<Permission>(p, PERMISSIONS, `${rulePath}/permission`, fail),
    );
    rule.end();
    return { subjects, permissions };
  });
  reader.end();
  return rules;
}

const policyAttributes = (policy: ReplicationPolicy): string =>
  attr("replicationAllowed", policy.replicationAllowed) + attr("numberReplicas", policy.numberReplicas);
const policyContent = (policy: ReplicationPolicy): string =>
  els("preferredMemberNode", policy.preferredMemberNodes) +
  els("blockedMemberNode", policy.blockedMemberNodes);

/** `<replicationPolicy replicationAllowed=.. numberReplicas=..>` with preferred, then blocked member nodes. */
export function replicationPolicyElement(policy: ReplicationPolicy): string {
  return `<replicationPolicy${policyAttributes(policy)}>${policyContent(policy)}</replicationPolicy>`;
}

export function serializeReplicationPolicy(policy: ReplicationPolicy): string {
  return document(NS_V1, "replicationPolicy", policyAttributes(policy), policyContent(policy));
}

export function parseReplicationPolicy(
  xml: string | Buffer,
  fail: ErrorClass = InvalidRequest,
): ReplicationPolicy {
  const root = parseXml(xml, fail);
  expectRoot(root, "replicationPolicy", [NS_V1], fail);
  return readReplicationPolicy(root, "replicationPolicy", fail);
}

export function readReplicationPolicy(
  element: XmlElement,
  path: string,
  fail: ErrorClass,
): ReplicationPolicy {
  const names = ["preferredMemberNode", "blockedMemberNode"];
  const reader = new Reader(element, path, names, fail, ["replicationAllowed", "numberReplicas"]);
  const policy: ReplicationPolicy = {
    preferredMemberNodes: manyTexts(reader, "preferredMemberNode").map((n) =>
      nonEmpty(n, `${path}/preferredMemberNode`, fail),
    ),
    blockedMemberNodes: manyTexts(reader, "blockedMemberNode").map((n) =>
      nonEmpty(n, `${path}/blockedMemberNode`, fail),
    ),
  };
  reader.end();
  const allowed = element.attributes.get("replicationAllowed");
  if (allowed !== undefined)
    policy.replicationAllowed = parseBoolean(allowed, `${path}/@replicationAllowed`, fail);
  const number = element.attributes.get("numberReplicas");
  // numberReplicas: type="xs:int"
  if (number !== undefined)
    policy.numberReplicas = parseInteger(number, `${path}/@numberReplicas`, fail, INT_MIN, INT_MAX);
  return policy;
}

const replicaContent = (replica: Replica): string =>
  `<replicaMemberNode>${escapeText(replica.replicaMemberNode)}</replicaMemberNode>` +
  `<replicationStatus>${replica.replicationStatus}</replicationStatus>${dateEl("replicaVerified", replica.replicaVerified)}`;

export function replicaElement(replica: Replica): string {
  return `<replica>${replicaContent(replica)}</replica>`;
}

export function serializeReplica(replica: Replica): string {
  return document(NS_V1, "replica", "", replicaContent(replica));
}

export function parseReplica(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Replica {
  const root = parseXml(xml, fail);
  expectRoot(root, "replica", [NS_V1], fail);
  return readReplica(root, "replica", fail);
}

export function readReplica(element: XmlElement, path: string, fail: ErrorClass): Replica {
  // Replica: replicaMemberNode, replicationStatus, replicaVerified, each exactly once.
  const reader = new Reader(
    element,
    path,
    ["replicaMemberNode", "replicationStatus", "replicaVerified"],
    fail,
  );
  const replica: Replica = {
    replicaMemberNode: nonEmpty(requiredText(reader, "replicaMemberNode"), `${path}/replicaMemberNode`, fail),
    replicationStatus: parseEnum(
      requiredText(reader, "replicationStatus"),
      REPLICATION_STATUSES,
      `${path}/replicationStatus`,
      fail,
    ),
    replicaVerified: parseDate(requiredText(reader, "replicaVerified"), `${path}/replicaVerified`, fail),
  };
  reader.end();
  return replica;
}
