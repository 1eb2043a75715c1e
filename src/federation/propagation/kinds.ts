/** The task kinds of change propagation, their keys and payloads. */

/** CN: tell one Member Node that an object's system metadata changed. */
export const SYSMETA_CHANGED = "sysmeta-changed";

export interface SysmetaChangedPayload {
  pid: string;
  nodeId: string;
  /** Failed deliveries so far, and when the first of them happened (ms). */
  failures?: number;
  failingSince?: number;
}

/** Keyed by node and PID: a change queued while an earlier one still waits is delivered with it, once. */
export const changeKey = (nodeId: string, pid: string) => `${nodeId} ${pid}`;

/** MN: refresh an object's system metadata from the CN's copy (keyed by PID). */
export const REFRESH_SYSMETA = "refresh-sysmeta";

export interface RefreshPayload {
  pid: string;
}
