/**
 * The method restrictions the node publishes in its Node document ("restriction: attribute methodName; child
 * subject (who may call that method)"), derived from the same settings the access functions read, so that the
 * document and the answers agree. Methods open to everyone, or decided per object, carry no restriction.
 */
import type { Config } from "../config/config.ts";
import type { ServiceMethodRestriction } from "../types/node.ts";
import { submissionOpen } from "./access.ts";

type RestrictionConfig = Pick<
  Config,
  "adminSubjects" | "cnSubjects" | "submitters" | "logReaders" | "cnBaseUrl"
>;

/** Restrictions per Member Node service name (MNCore, MNRead, MNStorage, ...). */
export function memberNodeRestrictions(
  config: RestrictionConfig,
): Record<string, ServiceMethodRestriction[]> {
  const trusted = unique([...config.cnSubjects, ...config.adminSubjects]);
  const only = (methodName: string, subjects: string[]) => ({ methodName, subjects });
  const submitters = unique([...config.submitters, ...trusted]);
  return {
    MNCore: config.logReaders === "trusted" ? [only("getLogRecords", trusted)] : [],
    MNRead: [
      // With a CN to ask, any node it scheduled a replica for may pull it (isNodeAuthorized, per object and
      // caller: replica-authorization.ts): no fixed list says that. Without one, only CNs and administrators.
      ...(config.cnBaseUrl === undefined ? [only("getReplica", trusted)] : []),
      only("synchronizationFailed", trusted),
      only("systemMetadataChanged", trusted),
    ],
    MNStorage: [
      ...(submissionOpen(config.submitters)
        ? []
        : ["create", "update", "generateIdentifier"].map((m) => only(m, submitters))),
      only("delete", trusted),
    ],
    MNReplication: [only("replicate", trusted)],
  };
}

function unique(subjects: string[]): string[] {
  return [...new Set(subjects)];
}
