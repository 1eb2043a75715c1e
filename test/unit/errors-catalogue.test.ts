import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { DETAIL_CODES, detailCodeFor, UNLISTED_DETAIL_CODE } from "../../src/errors/catalogue.ts";
import { isExceptionName } from "../../src/errors/exceptions.ts";

// The API text the node implements (spec/): the MN document (with the shared conventions), the CN document.
const SPEC_DIR = fileURLToPath(new URL("../../spec/", import.meta.url));
const SPEC_FILES = ["member-node-api.txt", "coordinating-node-api.txt"];

type Codes = Map<string, string>;

/** Parses the Endpoints section: `### Group` headings and `- **op** ... Errors: Name:code, ...` lines. */
function parseSpec(text: string, file: string): Map<string, Codes> {
  const start = text.indexOf("\n## Endpoints");
  assert.ok(start >= 0, `${file}: no Endpoints section`);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  const methods = new Map<string, Codes>();
  const refs: [method: string, target: string][] = [];
  let group: string | undefined;
  for (const line of section.split("\n")) {
    const heading = /^### (\S+)/.exec(line);
    if (heading) {
      group = /^(MN|CN)[A-Z][A-Za-z]*$/.test(heading[1] ?? "") ? heading[1] : undefined;
      continue;
    }
    const op = /^- \*\*(\w+)\*\*/.exec(line);
    if (!op) continue;
    assert.ok(group, `${file}: operation outside a group: ${line.slice(0, 60)}`);
    const method = `${group}.${op[1]}`;
    assert.ok(!methods.has(method), `${file}: ${method} listed twice`);
    const at = line.indexOf("Errors:");
    assert.ok(at >= 0, `${file}: ${method} has no Errors list`);
    const errors = line.slice(at + "Errors:".length).replace(/\([^()]*\)/g, "");
    const codes: Codes = new Map();
    for (const [, name = "", code = ""] of errors.matchAll(/\b([A-Z][A-Za-z]*):(\d+)/g)) {
      assert.ok(isExceptionName(name), `${file}: ${method} names unknown exception ${name}`);
      assert.ok(!codes.has(name), `${file}: ${method} lists ${name} twice`);
      codes.set(name, code);
    }
    const ref = /same (?:set and codes )?as (\w+)/.exec(errors);
    if (ref) refs.push([method, `${group}.${ref[1]}`]);
    else assert.ok(codes.size > 0, `${file}: ${method} has an empty Errors list`);
    methods.set(method, codes);
  }
  for (const [method, target] of refs) {
    const codes = methods.get(target);
    assert.ok(codes && codes.size > 0, `${file}: ${method} refers to unknown ${target}`);
    methods.set(method, new Map(codes));
  }
  return methods;
}

let loaded: Map<string, Codes> | undefined;

/** Reads both documents once; a missing file fails every test that needs it. */
function loadSpec(): Map<string, Codes> {
  if (loaded) return loaded;
  const all = new Map<string, Codes>();
  for (const file of SPEC_FILES) {
    const path = `${SPEC_DIR}${file}`;
    assert.ok(
      existsSync(path),
      `API reference missing: ${path} (the catalogue cannot be checked without it)`,
    );
    for (const [method, codes] of parseSpec(readFileSync(path, "utf8"), file)) {
      assert.ok(!all.has(method), `${method} appears in both documents`);
      all.set(method, codes);
    }
  }
  loaded = all;
  return all;
}

const table: Readonly<Record<string, Readonly<Record<string, string>>>> = DETAIL_CODES;

describe("detail code catalogue", () => {
  it("parses both documents", () => {
    const spec = loadSpec();
    assert.ok(
      [...spec.keys()].some((m) => m.startsWith("MN")),
      "no MN operations parsed",
    );
    assert.ok(
      [...spec.keys()].some((m) => m.startsWith("CN")),
      "no CN operations parsed",
    );
    assert.deepEqual(spec.get("CNIdentity.requestMapIdentity"), spec.get("CNIdentity.mapIdentity"));
    assert.deepEqual(spec.get("CNIdentity.denyMapIdentity"), spec.get("CNIdentity.confirmMapIdentity"));
  });

  it("holds every (method, exception) pair of the reference with its code", () => {
    const spec = loadSpec();
    const wrong: string[] = [];
    for (const [method, codes] of spec) {
      for (const [name, code] of codes) {
        const have = Object.hasOwn(table, method) ? table[method]?.[name] : undefined;
        if (have !== code) wrong.push(`${method} ${name}: spec ${code}, catalogue ${have ?? "missing"}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it("holds nothing the reference lacks", () => {
    const spec = loadSpec();
    const extra: string[] = [];
    for (const [method, codes] of Object.entries(table)) {
      for (const [name, code] of Object.entries(codes)) {
        if (spec.get(method)?.get(name) !== code) extra.push(`${method} ${name}: ${code}`);
      }
    }
    assert.deepEqual(extra, []);
  });
});

describe("detailCodeFor", () => {
  it("returns the listed code", () => {
    assert.equal(detailCodeFor("MNRead.get", "NotFound"), "1020");
    assert.equal(detailCodeFor("CNCore.reserveIdentifier", "IdentifierNotUnique"), "4210");
    assert.equal(detailCodeFor("CNCore.ping", "InsufficientResources"), "2045");
  });

  it("falls back to 0 for unlisted pairs and unknown methods", () => {
    assert.equal(UNLISTED_DETAIL_CODE, "0");
    assert.equal(detailCodeFor("MNRead.get", "VersionMismatch"), "0");
    assert.equal(detailCodeFor("MNRead.nope", "NotFound"), "0");
    assert.equal(detailCodeFor("toString", "NotFound"), "0");
    assert.equal(detailCodeFor("__proto__", "ServiceFailure"), "0");
  });
});
