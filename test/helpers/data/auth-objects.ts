/** Objects with chosen access policies, as multipart bodies for create/update/updateSystemMetadata. */
import { randomUUID } from "node:crypto";
import type { AccessRule } from "../../../src/types/index.ts";
import { sysmetaXml } from "./sysmeta.ts";

export interface ObjectSpec {
  rightsHolder: string;
  accessPolicy: AccessRule[];
  obsoletes?: string;
  serialVersion?: number;
}

export function newPid(tag: string): string {
  return `auth-${tag}-${randomUUID()}`;
}

/** The submitted document of the factory (sysmeta.ts) with the spec's owner and access policy. */
export function sysmetaOf(pid: string, bytes: Buffer, spec: ObjectSpec, version: "v1" | "v2" = "v2"): string {
  return sysmetaXml(pid, bytes, { ...spec, version });
}

const file = (text: string) => new Blob([text], { type: "text/xml" });

/** The parts of MNStorage.create. */
export function createBody(pid: string, spec: ObjectSpec): FormData {
  const bytes = Buffer.from(`a,b\n${pid},1\n`);
  const body = new FormData();
  body.append("pid", pid);
  body.append("object", new Blob([new Uint8Array(bytes)]), "object.csv");
  body.append("sysmeta", file(sysmetaOf(pid, bytes, spec)), "sysmeta.xml");
  return body;
}

/** The parts of MNStorage.update of `pid` by `next`. */
export function updateBody(pid: string, next: string, spec: ObjectSpec): FormData {
  const bytes = Buffer.from(`a,b\n${next},2\n`);
  const body = new FormData();
  body.append("newPid", next);
  body.append("object", new Blob([new Uint8Array(bytes)]), "object.csv");
  body.append("sysmeta", file(sysmetaOf(next, bytes, { ...spec, obsoletes: pid })), "sysmeta.xml");
  return body;
}

/** The parts of MNStorage.updateSystemMetadata, given the current document as served by the node. */
export function updateSysmetaBody(pid: string, current: string): FormData {
  const body = new FormData();
  body.append("pid", pid);
  body.append("sysmeta", file(current), "sysmeta.xml");
  return body;
}

/** MNRead.synchronizationFailed's message part. */
export function syncFailedBody(pid: string): FormData {
  const body = new FormData();
  const xml = `<error name="SynchronizationFailed" errorCode="500" detailCode="6001" identifier="${pid}"><description>test</description></error>`;
  body.append("message", file(xml), "message.xml");
  return body;
}

/** MNRead.systemMetadataChanged's parts. */
export function sysmetaChangedBody(pid: string): FormData {
  const body = new FormData();
  body.append("id", pid);
  body.append("serialVersion", "1");
  body.append("dateSysMetaLastModified", new Date().toISOString());
  return body;
}
