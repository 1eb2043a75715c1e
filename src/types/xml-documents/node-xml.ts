/**
 * Node and NodeList documents. Node (v1) is the sequence "identifier, name, description, baseURL, services?,
 * synchronization?, nodeReplicationPolicy?, ping?, subject*, contactSubject+" with the required attributes
 * replicate, synchronize, type and state; v2.0 appends "property*".
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import {
  NODE_STATES,
  NODE_TYPES,
  type Node,
  type NodeReplicationPolicy,
  type Ping,
  type Service,
  type Synchronization,
} from "../node.ts";
import {
  attr,
  dateEl,
  document,
  type ErrorClass,
  el,
  els,
  escapeText,
  formatDateTime,
  NS_V1,
  NS_V2,
  namespaceOf,
  parseXml,
  type XmlElement,
} from "../xml.ts";
import {
  expectRoot,
  manyTexts,
  nonEmpty,
  optionalText,
  parseBoolean,
  parseDate,
  parseEnum,
  parseInteger,
  Reader,
  requiredAttr,
  requiredText,
  textOf,
} from "../xml-read.ts";

const nodeAttributes = (node: Node): string =>
  attr("replicate", node.replicate) +
  attr("synchronize", node.synchronize) +
  attr("type", node.type) +
  attr("state", node.state);

function nodeContent(node: Node, version: "v1" | "v2"): string {
  let out =
    el("identifier", node.identifier) +
    el("name", node.name) +
    el("description", node.description) +
    el("baseURL", node.baseURL);
  if (node.services.length > 0) {
    out += "<services>";
    for (const s of node.services) {
      out += `<service${attr("name", s.name)}${attr("version", s.version)}${attr("available", s.available)}>`;
      for (const r of s.restrictions)
        out += `<restriction${attr("methodName", r.methodName)}>${els("subject", r.subjects)}</restriction>`;
      out += "</service>";
    }
    out += "</services>";
  }
  const sync = node.synchronization;
  if (sync) {
    const s = sync.schedule;
    out +=
      `<synchronization><schedule${attr("hour", s.hour)}${attr("mday", s.mday)}${attr("min", s.min)}${attr("mon", s.mon)}` +
      `${attr("sec", s.sec)}${attr("wday", s.wday)}${attr("year", s.year)}/>` +
      `${dateEl("lastHarvested", sync.lastHarvested)}${dateEl("lastCompleteHarvest", sync.lastCompleteHarvest)}</synchronization>`;
  }
  const policy = node.nodeReplicationPolicy;
  if (policy) {
    out +=
      `<nodeReplicationPolicy>${policy.maxObjectSize === undefined ? "" : `<maxObjectSize>${policy.maxObjectSize}</maxObjectSize>`}` +
      `${policy.spaceAllocated === undefined ? "" : `<spaceAllocated>${policy.spaceAllocated}</spaceAllocated>`}` +
      `${els("allowedNode", policy.allowedNodes)}${els("allowedObjectFormat", policy.allowedObjectFormats)}</nodeReplicationPolicy>`;
  }
  if (node.ping)
    out += `<ping${attr("success", node.ping.success)}${attr("lastSuccess", node.ping.lastSuccess && formatDateTime(node.ping.lastSuccess))}/>`;
  out += els("subject", node.subjects) + els("contactSubject", node.contactSubjects);
  if (version === "v2") {
    for (const p of node.properties)
      out += `<property${attr("key", p.key)}${attr("type", p.type)}>${escapeText(p.value)}</property>`;
  }
  return out;
}

export function serializeNode(node: Node, version: "v1" | "v2"): string {
  return document(namespaceOf(version), "node", nodeAttributes(node), nodeContent(node, version));
}

/** NodeList: "node minOccurs=1 maxOccurs=unbounded" (an empty list is written but is not schema-valid). */
export function serializeNodeList(nodes: readonly Node[], version: "v1" | "v2"): string {
  let content = "";
  for (const node of nodes) content += `<node${nodeAttributes(node)}>${nodeContent(node, version)}</node>`;
  return document(namespaceOf(version), "nodeList", "", content);
}

const NODE_SEQUENCE = [
  "identifier",
  "name",
  "description",
  "baseURL",
  "services",
  "synchronization",
  "nodeReplicationPolicy",
  "ping",
  "subject",
  "contactSubject",
];

/** Read a v1 or v2.0 node document (CNRegister.register, updateNodeCapabilities); failures are InvalidRequest. */
export function parseNode(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Node {
  const root = parseXml(xml, fail);
  expectRoot(root, "node", [NS_V1, NS_V2], fail);
  return readNode(root, root.namespace === NS_V2, fail);
}

/** Read a v1 or v2.0 nodeList (CNCore.listNodes, as another node answers it). */
export function parseNodeList(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Node[] {
  const root = parseXml(xml, fail);
  expectRoot(root, "nodeList", [NS_V1, NS_V2], fail);
  const r = new Reader(root, "nodeList", ["node"], fail);
  const nodes = r.many("node", 1).map((node) => readNode(node, root.namespace === NS_V2, fail));
  r.end();
  return nodes;
}

function readNode(root: XmlElement, v2: boolean, fail: ErrorClass): Node {
  const attributes = ["replicate", "synchronize", "type", "state"];
  const r = new Reader(root, "node", v2 ? [...NODE_SEQUENCE, "property"] : NODE_SEQUENCE, fail, attributes);
  const text = (name: string) => nonEmpty(requiredText(r, name), `node/${name}`, fail);
  const node: Node = {
    identifier: text("identifier"),
    name: text("name"),
    description: text("description"),
    baseURL: text("baseURL").trim(),
    services: [],
    subjects: [],
    contactSubjects: [],
    replicate: parseBoolean(requiredAttr(root, "replicate", "node", fail), "node/@replicate", fail),
    synchronize: parseBoolean(requiredAttr(root, "synchronize", "node", fail), "node/@synchronize", fail),
    type: parseEnum(requiredAttr(root, "type", "node", fail), NODE_TYPES, "node/@type", fail),
    state: parseEnum(requiredAttr(root, "state", "node", fail), NODE_STATES, "node/@state", fail),
    properties: [],
  };
  if (!URL.canParse(node.baseURL))
    throw new fail(`<node/baseURL> must be an absolute URL, not "${node.baseURL}".`);
  const services = r.optional("services");
  if (services) node.services = readServices(services, fail);
  const sync = r.optional("synchronization");
  if (sync) node.synchronization = readSynchronization(sync, fail);
  const policy = r.optional("nodeReplicationPolicy");
  if (policy) node.nodeReplicationPolicy = readNodeReplicationPolicy(policy, fail);
  const ping = r.optional("ping");
  if (ping) node.ping = readPing(ping, fail);
  node.subjects = manyTexts(r, "subject").map((s) => nonEmpty(s, "node/subject", fail));
  node.contactSubjects = manyTexts(r, "contactSubject", 1).map((s) =>
    nonEmpty(s, "node/contactSubject", fail),
  );
  if (v2) {
    node.properties = r.many("property").map((p) => {
      const value = textOf(p, "node/property", fail, ["key", "type"]);
      const type = p.attributes.get("type");
      return {
        key: requiredAttr(p, "key", "node/property", fail),
        value,
        ...(type !== undefined ? { type } : {}),
      };
    });
  }
  r.end();
  return node;
}

function readServices(element: XmlElement, fail: ErrorClass): Service[] {
  const r = new Reader(element, "node/services", ["service"], fail);
  const path = "node/services/service";
  const services = r.many("service", 1).map((s): Service => {
    const sr = new Reader(s, path, ["restriction"], fail, ["name", "version", "available"]);
    const restrictions = sr.many("restriction").map((restriction) => {
      const rr = new Reader(restriction, `${path}/restriction`, ["subject"], fail, ["methodName"]);
      const subjects = manyTexts(rr, "subject").map((x) => nonEmpty(x, `${path}/restriction/subject`, fail));
      rr.end();
      return { methodName: requiredAttr(restriction, "methodName", `${path}/restriction`, fail), subjects };
    });
    sr.end();
    const available = s.attributes.get("available");
    return {
      // ServiceName, ServiceVersion: NonEmptyString
      name: nonEmpty(requiredAttr(s, "name", path, fail), `${path}/@name`, fail),
      version: nonEmpty(requiredAttr(s, "version", path, fail), `${path}/@version`, fail),
      ...(available !== undefined ? { available: parseBoolean(available, `${path}/@available`, fail) } : {}),
      restrictions,
    };
  });
  r.end();
  return services;
}

// CrontabEntry: pattern "([\?\*\d/#,\-a-zA-Z])+"; CrontabEntrySeconds: pattern "[0-5]?\d".
const CRONTAB = /^[?*\d/#,\-a-zA-Z]+$/;
const CRONTAB_SECONDS = /^[0-5]?\d$/;

function readSynchronization(element: XmlElement, fail: ErrorClass): Synchronization {
  const path = "node/synchronization";
  const r = new Reader(element, path, ["schedule", "lastHarvested", "lastCompleteHarvest"], fail);
  const schedule = r.required("schedule");
  const fields = ["hour", "mday", "min", "mon", "sec", "wday", "year"] as const;
  new Reader(schedule, `${path}/schedule`, [], fail, fields).end();
  const entry = (field: (typeof fields)[number]) => {
    const value = requiredAttr(schedule, field, `${path}/schedule`, fail).trim();
    if (!(field === "sec" ? CRONTAB_SECONDS : CRONTAB).test(value)) {
      throw new fail(`Attribute ${path}/schedule/@${field} is not a valid crontab entry: "${value}".`);
    }
    return value;
  };
  const sync: Synchronization = {
    schedule: {
      sec: entry("sec"),
      min: entry("min"),
      hour: entry("hour"),
      mday: entry("mday"),
      mon: entry("mon"),
      wday: entry("wday"),
      year: entry("year"),
    },
  };
  const harvested = optionalText(r, "lastHarvested");
  if (harvested !== undefined) sync.lastHarvested = parseDate(harvested, `${path}/lastHarvested`, fail);
  const complete = optionalText(r, "lastCompleteHarvest");
  if (complete !== undefined)
    sync.lastCompleteHarvest = parseDate(complete, `${path}/lastCompleteHarvest`, fail);
  r.end();
  return sync;
}

function readNodeReplicationPolicy(element: XmlElement, fail: ErrorClass): NodeReplicationPolicy {
  const path = "node/nodeReplicationPolicy";
  const names = ["maxObjectSize", "spaceAllocated", "allowedNode", "allowedObjectFormat"];
  const r = new Reader(element, path, names, fail);
  const policy: NodeReplicationPolicy = { allowedNodes: [], allowedObjectFormats: [] };
  const max = optionalText(r, "maxObjectSize");
  if (max !== undefined) policy.maxObjectSize = parseInteger(max, `${path}/maxObjectSize`, fail);
  const space = optionalText(r, "spaceAllocated");
  if (space !== undefined) policy.spaceAllocated = parseInteger(space, `${path}/spaceAllocated`, fail);
  policy.allowedNodes = manyTexts(r, "allowedNode").map((n) => nonEmpty(n, `${path}/allowedNode`, fail));
  policy.allowedObjectFormats = manyTexts(r, "allowedObjectFormat").map((f) =>
    nonEmpty(f, `${path}/allowedObjectFormat`, fail),
  );
  r.end();
  return policy;
}

function readPing(element: XmlElement, fail: ErrorClass): Ping {
  new Reader(element, "node/ping", [], fail, ["success", "lastSuccess"]).end();
  const ping: Ping = {};
  const success = element.attributes.get("success");
  if (success !== undefined) ping.success = parseBoolean(success, "node/ping/@success", fail);
  const last = element.attributes.get("lastSuccess");
  if (last !== undefined) ping.lastSuccess = parseDate(last, "node/ping/@lastSuccess", fail);
  return ping;
}
