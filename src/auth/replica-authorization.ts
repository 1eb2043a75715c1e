/**
 * MNRead.getReplica: "Used by a target MN to fulfil a CN replication request ... For restricted objects, a Tier 2
 * or higher MN MUST call CNReplication.isNodeAuthorized to verify the caller." The node asks the CN whether a
 * replication of this object to the calling node was scheduled: GET {cn}/v2/replicaAuthorizations/{pid}
 * ?targetNodeSubject={subject}; 200 means yes, NotAuthorized (401) or NotFound (404) no. The question is asked
 * as this node (its certificate or bearer token, as for its other calls to nodes).
 */
import { request } from "undici";
import { ServiceFailure } from "../errors/exceptions.ts";
import { deadlineSignal } from "../remote/limits.ts";
import { type NodeCallConfig, nodeCallHeaders, nodeDispatcher } from "./node-credentials.ts";

export interface ReplicaAuthorizer {
  isNodeAuthorized(pid: string, targetNodeSubject: string): Promise<boolean>;
}

export function createCnReplicaAuthorizer(
  config: NodeCallConfig,
  cnBaseUrl: string,
  timeoutMs = 10_000,
): ReplicaAuthorizer {
  const base = cnBaseUrl.replace(/\/+$/, "");
  return {
    async isNodeAuthorized(pid, targetNodeSubject) {
      const url = `${base}/v2/replicaAuthorizations/${encodeURIComponent(pid)}?targetNodeSubject=${encodeURIComponent(targetNodeSubject)}`;
      let status: number;
      try {
        const response = await request(url, {
          dispatcher: nodeDispatcher(config),
          headers: await nodeCallHeaders(config, url),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          // The whole answer, not only each wait for its next bytes: a CN trickling its body holds no read.
          signal: deadlineSignal(timeoutMs),
        });
        status = response.statusCode;
        await response.body.dump();
      } catch (error) {
        throw new ServiceFailure(
          `The Coordinating Node could not be asked whether the replica may be served: ${String(error)}`,
          { pid },
        );
      }
      if (status === 200) return true;
      if (status === 401 || status === 404) return false;
      throw new ServiceFailure(`The Coordinating Node answered isNodeAuthorized with HTTP ${status}.`, {
        pid,
      });
    },
  };
}
