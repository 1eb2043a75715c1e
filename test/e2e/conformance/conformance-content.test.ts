/**
 * DataONE MN web-tester checklist, ContentIntegrityTestImplementations: resource maps parse as OAI-ORE, and the
 * checksum and size that listObjects gives for RESOURCE and METADATA objects match the system metadata and the
 * bytes. The node holds two OAI-ORE resource maps (RDF/XML as DataONE's libraries write them) and EML documents;
 * the checks list objects anonymously, format by format, from the object format list the node ships.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { type Caller, call, create, enc, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ORE = "http://www.openarchives.org/ore/terms";
const EML = "eml://ecoinformatics.org/eml-2.1.1";
const RESOLVE = "https://cn.dataone.org/cn/v2/resolve/";
const OWNER = "CN=Content Tester,DC=example,DC=org";
const NS = {
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  ore: "http://www.openarchives.org/ore/terms/",
  dcterms: "http://purl.org/dc/terms/",
  cito: "http://purl.org/spar/cito/",
};

/** formatIds of one formatType in the node's object format list. */
function formatsOfType(type: "RESOURCE" | "METADATA"): string[] {
  const file = fileURLToPath(new URL("../../../data/object-formats/objectFormatListV2.xml", import.meta.url));
  return [...readFileSync(file, "utf8").matchAll(/<objectFormat>([\s\S]*?)<\/objectFormat>/g)]
    .filter(([, body = ""]) => elementText(body, "formatType") === type)
    .map(([, body = ""]) => elementText(body, "formatId") ?? "");
}

const uri = (id: string) => `${RESOLVE}${enc(id)}`;

/** An OAI-ORE resource map: `metadata` documents every one of `data`. */
function resourceMap(id: string, metadata: string, data: string[]): string {
  const literal = (v: string) =>
    `<dcterms:identifier rdf:datatype="http://www.w3.org/2001/XMLSchema#string">${v}</dcterms:identifier>`;
  const aggregation = `${uri(id)}#aggregation`;
  const member = (m: string, links: string) =>
    `<rdf:Description rdf:about="${uri(m)}">${literal(m)}${links}<ore:isAggregatedBy rdf:resource="${aggregation}"/></rdf:Description>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rdf:RDF xmlns:cito="${NS.cito}" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="${NS.dcterms}"`,
    ` xmlns:ore="${NS.ore}" xmlns:rdf="${NS.rdf}">`,
    `<rdf:Description rdf:about="${uri(id)}">${literal(id)}<dc:format>application/rdf+xml</dc:format>`,
    `<dcterms:modified>2024-01-01T00:00:00Z</dcterms:modified>`,
    `<rdf:type rdf:resource="${NS.ore}ResourceMap"/><ore:describes rdf:resource="${aggregation}"/></rdf:Description>`,
    `<ore:Aggregation rdf:about="${aggregation}"><ore:isDescribedBy rdf:resource="${uri(id)}"/>`,
    ...[metadata, ...data].map((m) => `<ore:aggregates rdf:resource="${uri(m)}"/>`),
    "</ore:Aggregation>",
    member(metadata, data.map((d) => `<cito:documents rdf:resource="${uri(d)}"/>`).join("")),
    ...data.map((d) => member(d, `<cito:isDocumentedBy rdf:resource="${uri(metadata)}"/>`)),
    "</rdf:RDF>",
  ].join("\n");
}

type Triple = [subject: string, predicate: string, object: string];
type XmlNode = Record<string, unknown> & { ":@"?: Record<string, string> };

/** RDF/XML node elements and property elements (the subset resource maps use) as triples with full URIs. */
function rdfTriples(xml: string): Triple[] {
  assert.equal(XMLValidator.validate(xml), true, "well-formed XML");
  const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: "" });
  const doc = parser.parse(xml) as XmlNode[];
  const root = doc.find((n) => "rdf:RDF" in n);
  assert.ok(root, "an rdf:RDF root");
  const ns = new Map<string, string>();
  for (const [k, v] of Object.entries(root[":@"] ?? {})) if (k.startsWith("xmlns:")) ns.set(k.slice(6), v);
  const expand = (qname: string) => {
    const [prefix = "", local = ""] = qname.split(":");
    const base = ns.get(prefix);
    assert.ok(base, `namespace prefix ${prefix} is declared`);
    return base + local;
  };
  const name = (n: XmlNode) => Object.keys(n).find((k) => k !== ":@") ?? "";
  const triples: Triple[] = [];
  for (const element of root["rdf:RDF"] as XmlNode[]) {
    const tag = name(element);
    if (tag === "#text") continue;
    const subject = element[":@"]?.["rdf:about"] ?? "";
    assert.ok(subject, `${tag} has rdf:about`);
    if (tag !== "rdf:Description") triples.push([subject, `${NS.rdf}type`, expand(tag)]);
    for (const property of element[tag] as XmlNode[]) {
      const p = name(property);
      if (p === "#text") continue;
      const resource = property[":@"]?.["rdf:resource"];
      const text = (property[p] as XmlNode[]).map((t) => String(t["#text"] ?? "")).join("");
      triples.push([subject, expand(p), resource ?? text]);
    }
  }
  return triples;
}

/** As DataONE's ResourceMapFactory.parseResourceMap: resource map id -> metadata id -> data ids. */
function parseResourceMap(xml: string): Map<string, Map<string, string[]>> {
  const triples = rdfTriples(xml);
  const objects = (s: string, p: string) =>
    triples.filter(([ts, tp]) => ts === s && tp === p).map((t) => t[2]);
  const idOf = (subject: string) => {
    const [id] = objects(subject, `${NS.dcterms}identifier`);
    assert.ok(id, `${subject} has a dcterms:identifier`);
    return id;
  };
  const maps = triples.filter(([, p, o]) => p === `${NS.rdf}type` && o === `${NS.ore}ResourceMap`);
  assert.equal(maps.length, 1, "one ore:ResourceMap");
  const [map = ""] = maps[0] ?? [];
  const [aggregation = ""] = objects(map, `${NS.ore}describes`);
  assert.ok(objects(aggregation, `${NS.rdf}type`).includes(`${NS.ore}Aggregation`));
  const aggregated = objects(aggregation, `${NS.ore}aggregates`);
  const documents = new Map<string, string[]>();
  for (const member of aggregated) {
    const data = objects(member, `${NS.cito}documents`);
    for (const d of data) assert.ok(aggregated.includes(d), `${d} is aggregated`);
    if (data.length > 0) documents.set(idOf(member), data.map(idOf));
  }
  return new Map([[idOf(map), documents]]);
}

const attr = (xml: string, name: string) => Number(new RegExp(`\\s${name}="(\\d+)"`).exec(xml)?.[1]);
const infos = (list: string) =>
  [...list.matchAll(/<objectInfo>([\s\S]*?)<\/objectInfo>/g)].map(([, body = ""]) => body);
const NODE_ALGORITHM: Record<string, string> = { MD5: "md5", "SHA-1": "sha1", "SHA-256": "sha256" };

for (const dialect of testDialects()) {
  describe(`conformance: ContentIntegrityTestImplementations (${dialect})`, () => {
    const node = withTestNode(dialect);
    let anon: Caller;
    const packages: { map: string; metadata: string; data: string[] }[] = [];
    before(async () => {
      anon = { baseUrl: node.baseUrl };
      const owner = { baseUrl: node.baseUrl, token: await node.token(OWNER) };
      const put = async (
        pid: string,
        bytes: string,
        formatId: string,
        algorithm: "MD5" | "SHA-1" | "SHA-256",
      ) => {
        const response = await create(owner, pid, Buffer.from(bytes), {
          rightsHolder: OWNER,
          formatId,
          algorithm,
        });
        assert.equal(response.status, 200, await response.text());
      };
      for (const [i, algorithm] of (["SHA-1", "SHA-256"] as const).entries()) {
        const metadata = uniquePid(`eml/${i}`);
        const data = [uniquePid(`data:${i}`), uniquePid(`data ${i}`).replace(/ /g, "%20")];
        const eml = `<?xml version="1.0" encoding="UTF-8"?>\n<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="${metadata}" system="test"><dataset><title>Package ${i}</title></dataset></eml:eml>\n`;
        await put(metadata, eml, EML, algorithm);
        for (const d of data) await put(d, `x,y\n${i},${d.length}\n`, "text/csv", "MD5");
        const map = uniquePid(`resource_map_${i}`);
        await put(map, resourceMap(map, metadata, data), ORE, algorithm);
        packages.push({ map, metadata, data });
      }
    });

    const list = async (query: string, version: "v1" | "v2" = "v2") =>
      okXml(await call({ ...anon, version }, "GET", `/object?${query}`));
    const getBytes = async (pid: string) => {
      const response = await call(anon, "GET", `/object/${enc(pid)}`);
      assert.equal(response.status, 200);
      return Buffer.from(await response.arrayBuffer());
    };

    it("testResourceMap_Parsing: the first OAI-ORE object listed parses as a resource map", async () => {
      for (const version of ["v1", "v2"] as const) {
        const listed = infos(await list(`formatId=${encodeURIComponent(ORE)}`, version));
        assert.ok(listed.length > 0, "resource maps are listed");
        const first = elementText(listed[0] ?? "", "identifier") ?? "";
        const parsed = parseResourceMap((await getBytes(first)).toString("utf8"));
        const expected = packages.find((p) => p.map === first);
        assert.ok(expected);
        assert.deepEqual(parsed, new Map([[first, new Map([[expected.metadata, expected.data]])]]));
      }
    });

    for (const type of ["RESOURCE", "METADATA"] as const) {
      const item = type === "RESOURCE" ? "testResourceMap" : "testMetadata";
      it(`${item}_Checksum_Size_Consistency: listObjects, system metadata and bytes agree`, async () => {
        let found = 0;
        for (const formatId of formatsOfType(type)) {
          for (const info of infos(await list(`formatId=${encodeURIComponent(formatId)}`))) {
            const pid = elementText(info, "identifier") ?? "";
            const sysmeta = await okXml(await call(anon, "GET", `/meta/${enc(pid)}`));
            const checksum = /<checksum algorithm="([^"]+)">([^<]+)<\/checksum>/;
            const [, algorithm = "", value = ""] = checksum.exec(info) ?? [];
            assert.deepEqual(checksum.exec(sysmeta)?.slice(1), [algorithm, value], pid);
            assert.equal(elementText(info, "size"), elementText(sysmeta, "size"), pid);
            assert.equal(elementText(info, "formatId"), formatId);
            const bytes = await getBytes(pid);
            assert.equal(String(bytes.length), elementText(sysmeta, "size"));
            const recomputed = createHash(NODE_ALGORITHM[algorithm] ?? "none")
              .update(bytes)
              .digest("hex");
            assert.equal(recomputed, value, `${pid}: ${algorithm}`);
            found++;
          }
        }
        assert.equal(found, packages.length, `the ${type} objects are listed under their formats`);
      });
    }

    it("testResourceMapParsing: every listed resource map (count=20) parses", async () => {
      const parsed: string[] = [];
      for (const formatId of formatsOfType("RESOURCE")) {
        const listed = await list(`formatId=${encodeURIComponent(formatId)}&count=20`);
        assert.ok(attr(listed, "count") <= 20);
        for (const info of infos(listed)) {
          const pid = elementText(info, "identifier") ?? "";
          assert.ok(parseResourceMap((await getBytes(pid)).toString("utf8")).has(pid));
          parsed.push(pid);
        }
      }
      assert.deepEqual(parsed.sort(), packages.map((p) => p.map).sort());
    });

    it("testResourceMap_ResolveURL: every aggregated resource is a resolve URL of an object held here", async () => {
      for (const { map } of packages) {
        const triples = rdfTriples((await getBytes(map)).toString("utf8"));
        const aggregated = triples.filter(([, p]) => p === `${NS.ore}aggregates`).map((t) => t[2]);
        assert.equal(aggregated.length, 3);
        for (const resource of [...aggregated, `${RESOLVE}${enc(map)}`]) {
          assert.ok(resource.startsWith(RESOLVE), resource);
          const id = decodeURIComponent(resource.slice(RESOLVE.length));
          const literal = triples.find(([s, p]) => s === resource && p === `${NS.dcterms}identifier`)?.[2];
          assert.equal(literal, id, "the URL names the resource's identifier");
          assert.equal((await call(anon, "HEAD", `/object/${enc(id)}`)).status, 200, id);
        }
      }
    });
  });
}
