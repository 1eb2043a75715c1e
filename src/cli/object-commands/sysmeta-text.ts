/**
 * System metadata as `d1node object show` prints it: one field a line, a name then its value, fields that are
 * not set left out (except archived, whose absence means "no"); the access policy one subject a line.
 */
import type { AccessRule, ReplicationPolicy, SystemMetadata } from "../../types/index.ts";

export function systemMetadataText(s: SystemMetadata): string {
  const lines: [string, string | undefined][] = [
    ["identifier", s.identifier],
    ["seriesId", s.seriesId],
    ["formatId", s.formatId],
    ["size", `${s.size} bytes`],
    ["checksum", `${s.checksum.algorithm} ${s.checksum.value}`],
    ["fileName", s.fileName],
    ["mediaType", s.mediaType?.name],
    ["submitter", s.submitter],
    ["rightsHolder", s.rightsHolder],
    ...accessLines(s.accessPolicy),
    ["replication", replicationText(s.replicationPolicy)],
    ...s.replicas.map((r): [string, string] => [
      "replica",
      `${r.replicaMemberNode} ${r.replicationStatus} (verified ${r.replicaVerified.toISOString()})`,
    ]),
    ["obsoletes", s.obsoletes],
    ["obsoletedBy", s.obsoletedBy],
    ["archived", s.archived ? "yes" : "no"],
    ["dateUploaded", s.dateUploaded?.toISOString()],
    ["dateSysMetadataModified", s.dateSysMetadataModified?.toISOString()],
    ["originMemberNode", s.originMemberNode],
    ["authoritativeMemberNode", s.authoritativeMemberNode],
    ["serialVersion", s.serialVersion === undefined ? undefined : String(s.serialVersion)],
  ];
  const width = Math.max(...lines.map(([name]) => name.length));
  return lines
    .filter((line): line is [string, string] => line[1] !== undefined)
    .map(([name, value]) => `${name.padEnd(width)}  ${value}\n`)
    .join("");
}

/** "access  SUBJECT: read, write" per subject, in the policy's order; "access  (none: the rights holder alone)". */
function accessLines(rules: readonly AccessRule[]): [string, string][] {
  const bySubject = new Map<string, Set<string>>();
  for (const rule of rules) {
    for (const subject of rule.subjects) {
      const permissions = bySubject.get(subject) ?? new Set<string>();
      for (const permission of rule.permissions) permissions.add(permission);
      bySubject.set(subject, permissions);
    }
  }
  if (bySubject.size === 0) return [["access", "(none: the rights holder alone)"]];
  return [...bySubject].map(([subject, permissions]) => [
    "access",
    `${subject}: ${[...permissions].join(", ")}`,
  ]);
}

function replicationText(policy: ReplicationPolicy | undefined): string {
  if (!policy) return "no policy (the node's default)";
  if (policy.replicationAllowed === false) return "not allowed";
  const parts = [policy.replicationAllowed ? "allowed" : "replicationAllowed not given"];
  if (policy.numberReplicas !== undefined) parts.push(`${policy.numberReplicas} replicas wanted`);
  if (policy.preferredMemberNodes.length > 0)
    parts.push(`preferred ${policy.preferredMemberNodes.join(" ")}`);
  if (policy.blockedMemberNodes.length > 0) parts.push(`blocked ${policy.blockedMemberNodes.join(" ")}`);
  return parts.join(", ");
}
