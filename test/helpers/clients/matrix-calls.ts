/**
 * How the access matrix calls each Member Node operation (the expected answers live in the test). Keyed by the
 * row label; `method` is the API method, whose detail codes the answers must carry.
 */
import type { ObjectSpec } from "../data/auth-objects.ts";
import {
  createBody,
  newPid,
  syncFailedBody,
  sysmetaChangedBody,
  sysmetaOf,
  updateBody,
  updateSysmetaBody,
} from "../data/auth-objects.ts";
import { type TlsCaller, type TlsResponse, tlsCall } from "./tls-client.ts";

export interface CellContext {
  /** The object under test, and an identifier nothing has. */
  pid: string;
  missing: string;
  spec: ObjectSpec;
  admin: TlsCaller;
  /** An object like `pid` made for this cell alone (for calls that change or remove it). */
  fresh: () => Promise<string>;
}

export interface MnCall {
  method: string;
  run: (as: TlsCaller, c: CellContext) => Promise<TlsResponse>;
}

const e = encodeURIComponent;
const call = (method: string, run: MnCall["run"]): MnCall => ({ method, run });

export const MN_CALLS: Record<string, MnCall> = {
  ping: call("MNCore.ping", (as) => tlsCall(as, "GET", "/monitor/ping")),
  getCapabilities: call("MNCore.getCapabilities", (as) => tlsCall(as, "GET", "/node")),
  getLogRecords: call("MNCore.getLogRecords", (as) => tlsCall(as, "GET", "/log?count=5")),
  listObjects: call("MNRead.listObjects", (as) => tlsCall(as, "GET", "/object?count=10000")),
  get: call("MNRead.get", (as, c) => tlsCall(as, "GET", `/object/${e(c.pid)}`)),
  describe: call("MNRead.describe", (as, c) => tlsCall(as, "HEAD", `/object/${e(c.pid)}`)),
  getSystemMetadata: call("MNRead.getSystemMetadata", (as, c) => tlsCall(as, "GET", `/meta/${e(c.pid)}`)),
  getChecksum: call("MNRead.getChecksum", (as, c) => tlsCall(as, "GET", `/checksum/${e(c.pid)}`)),
  "get (missing)": call("MNRead.get", (as, c) => tlsCall(as, "GET", `/object/${e(c.missing)}`)),
  getReplica: call("MNRead.getReplica", (as, c) => tlsCall(as, "GET", `/replica/${e(c.pid)}`)),
  synchronizationFailed: call("MNRead.synchronizationFailed", (as, c) =>
    tlsCall(as, "POST", "/error", syncFailedBody(c.pid)),
  ),
  systemMetadataChanged: call("MNRead.systemMetadataChanged", (as, c) =>
    tlsCall(as, "POST", "/dirtySystemMetadata", sysmetaChangedBody(c.pid)),
  ),
  ...Object.fromEntries(
    (["read", "write", "changePermission"] as const).map((action) => [
      `isAuthorized ${action}`,
      call("MNAuthorization.isAuthorized", (as, c) =>
        tlsCall(as, "GET", `/isAuthorized/${e(c.pid)}?action=${action}`),
      ),
    ]),
  ),
  "isAuthorized (missing)": call("MNAuthorization.isAuthorized", (as, c) =>
    tlsCall(as, "GET", `/isAuthorized/${e(c.missing)}?action=read`),
  ),
  create: call("MNStorage.create", (as, c) =>
    tlsCall(as, "POST", "/object", createBody(newPid("matrix-new"), c.spec)),
  ),
  generateIdentifier: call("MNStorage.generateIdentifier", (as) => {
    const body = new FormData();
    body.append("scheme", "UUID");
    return tlsCall(as, "POST", "/generate", body);
  }),
  update: call("MNStorage.update", async (as, c) => {
    const pid = await c.fresh();
    return tlsCall(as, "PUT", `/object/${e(pid)}`, updateBody(pid, newPid("matrix-next"), c.spec));
  }),
  "update (missing)": call("MNStorage.update", (as, c) =>
    tlsCall(as, "PUT", `/object/${e(c.missing)}`, updateBody(c.missing, newPid("matrix-next"), c.spec)),
  ),
  archive: call("MNStorage.archive", async (as, c) => tlsCall(as, "PUT", `/archive/${e(await c.fresh())}`)),
  "archive (missing)": call("MNStorage.archive", (as, c) => tlsCall(as, "PUT", `/archive/${e(c.missing)}`)),
  delete: call("MNStorage.delete", async (as, c) => tlsCall(as, "DELETE", `/object/${e(await c.fresh())}`)),
  "delete (missing)": call("MNStorage.delete", (as, c) => tlsCall(as, "DELETE", `/object/${e(c.missing)}`)),
  updateSystemMetadata: call("MNStorage.updateSystemMetadata", async (as, c) => {
    const pid = await c.fresh();
    const current = await tlsCall(c.admin, "GET", `/meta/${e(pid)}`);
    return tlsCall(as, "PUT", "/meta", updateSysmetaBody(pid, current.body));
  }),
  "updateSystemMetadata (missing)": call("MNStorage.updateSystemMetadata", (as, c) => {
    const sysmeta = sysmetaOf(c.missing, Buffer.from("x"), { ...c.spec, serialVersion: 1 });
    return tlsCall(as, "PUT", "/meta", updateSysmetaBody(c.missing, sysmeta));
  }),
};
