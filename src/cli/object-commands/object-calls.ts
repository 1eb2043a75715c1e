/**
 * The DataONE API calls `d1node object` makes to a running node, as the caller its credentials name: the node's
 * type (CNCore/MNCore.getCapabilities), getSystemMetadata, and the changes (MNStorage.updateSystemMetadata or
 * CNAuthorization.setAccessPolicy, archive, delete). The node decides who may do what, exactly as for any
 * client; a refusal ends the command with one line (`refusal`).
 */
import { Agent, FormData, request } from "undici";
import {
  type AccessRule,
  type NodeType,
  parseError,
  parseNode,
  parseSystemMetadata,
  type SystemMetadata,
  serializeAccessPolicy,
  serializeSystemMetadata,
} from "../../types/index.ts";
import { OperatorError } from "../operator-error.ts";
import { authorization, type Credentials, describe } from "../upload/upload.ts";

/** A node's base URL (without /v1 or /v2), its type, and the caller's credentials. */
export interface ObjectTarget extends Credentials {
  root: string;
  type: NodeType;
}

interface Answer {
  status: number;
  body: string;
}

/** The node behind `root`, asked for its Node document (anonymously: it is public). */
export async function reachNode(root: string, credentials: Credentials): Promise<ObjectTarget> {
  const base = root.replace(/\/+$/, "");
  const answer = await send({ ...credentials, tokenFile: undefined }, "GET", `${base}/v2/`);
  let type: NodeType | undefined;
  if (answer.status === 200) {
    try {
      type = parseNode(answer.body).type;
    } catch {}
  }
  if (!type) {
    throw new OperatorError(
      `${base} does not answer as a DataONE node (HTTP ${answer.status} for ${base}/v2/): --node is the node's base URL with its base path, e.g. https://mn.example.org/mn`,
    );
  }
  return { ...credentials, root: base, type };
}

/** getSystemMetadata: the document as the node sent it, and parsed. */
export async function readSystemMetadata(
  target: ObjectTarget,
  pid: string,
): Promise<{ xml: string; sysmeta: SystemMetadata }> {
  const answer = await send(target, "GET", `${target.root}/v2/meta/${encodeURIComponent(pid)}`);
  if (answer.status !== 200) throw refusal(answer, `the system metadata of "${pid}"`);
  try {
    return { xml: answer.body, sysmeta: parseSystemMetadata(answer.body) };
  } catch (error) {
    throw new OperatorError(`the node's system metadata of "${pid}" cannot be read: ${describe(error)}`);
  }
}

/**
 * The object's access policy replaced by `rules`: on a Member Node MNStorage.updateSystemMetadata with the
 * document as read (its serialVersion, so a change made in between is refused rather than overwritten); on a
 * Coordinating Node CNAuthorization.setAccessPolicy with that serialVersion.
 */
export async function changeAccessPolicy(
  target: ObjectTarget,
  current: SystemMetadata,
  rules: AccessRule[],
): Promise<void> {
  const pid = current.identifier;
  const body = new FormData();
  let answer: Answer;
  if (target.type === "cn") {
    body.append("accessPolicy", xmlFile(serializeAccessPolicy(rules)), "accessPolicy.xml");
    body.append("serialVersion", String(current.serialVersion ?? 0));
    answer = await send(target, "PUT", `${target.root}/v2/accessRules/${encodeURIComponent(pid)}`, body);
  } else {
    body.append("pid", pid);
    const changed = serializeSystemMetadata({ ...current, accessPolicy: rules }, "v2");
    body.append("sysmeta", xmlFile(changed), "sysmeta.xml");
    answer = await send(target, "PUT", `${target.root}/v2/meta`, body);
  }
  if (answer.status !== 200) throw refusal(answer, `the access policy of "${pid}"`);
}

/** MNStorage.archive or CNCore.archive. */
export async function archiveObject(target: ObjectTarget, pid: string): Promise<void> {
  const answer = await send(target, "PUT", `${target.root}/v2/archive/${encodeURIComponent(pid)}`);
  if (answer.status !== 200) throw refusal(answer, `archive of "${pid}"`);
}

/** MNStorage.delete or CNCore.delete (the node's administrators alone, as the API says). */
export async function deleteObject(target: ObjectTarget, pid: string): Promise<void> {
  const answer = await send(target, "DELETE", `${target.root}/v2/object/${encodeURIComponent(pid)}`);
  if (answer.status !== 200) throw refusal(answer, `delete of "${pid}"`);
}

/**
 * The node's answer as one line: "NotFound: description" exits 2 (no such object: the operator named the wrong
 * one), any other DataONE exception exits 1 (the node ran the call and said no: NotAuthorized, InvalidRequest).
 */
function refusal(answer: Answer, what: string): OperatorError {
  try {
    const error = parseError(answer.body);
    const line = `${error.exception}: ${error.description}`;
    return error.exception === "NotFound"
      ? new OperatorError(line, 2)
      : new OperatorError(`the node refused ${what}: ${line}`, 1);
  } catch {
    const first = answer.body.trim().split("\n")[0] ?? "";
    return new OperatorError(`the node refused ${what}: HTTP ${answer.status}${first ? ` ${first}` : ""}`, 1);
  }
}

const xmlFile = (xml: string) => new Blob([xml], { type: "text/xml" });

/** One request with the caller's credentials; a node out of reach ends the command (exit 2). */
async function send(
  credentials: Credentials,
  method: "GET" | "PUT" | "DELETE",
  url: string,
  body?: FormData,
): Promise<Answer> {
  const dispatcher = new Agent({ connect: credentials.tls });
  try {
    const answer = await request(url, {
      method,
      headers: authorization(credentials),
      dispatcher,
      ...(body ? { body } : {}),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    return { status: answer.statusCode, body: await answer.body.text() };
  } catch (error) {
    throw new OperatorError(`cannot reach ${url}: ${describe(error)}`);
  } finally {
    await dispatcher.close();
  }
}
