/**
 * The lock file installs anywhere and on every Node the project promises (package.json `engines`): `npm ci`
 * refuses a lock that lacks a package's optional dependencies (the platform binaries of Biome and esbuild), and a
 * dependency whose own `engines` leaves out part of that range would warn at install and may fail to load.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, it } from "node:test";

const semver = createRequire(import.meta.url)("semver") as {
  minVersion(range: string): { version: string } | null;
  subset(sub: string, range: string): boolean;
};

interface LockEntry {
  version?: string;
  engines?: Record<string, string> | string[];
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, LockEntry>;
};
const project = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  engines: { node: string };
};

/** Where npm finds `name` from the package at `location`: its own node_modules, then each parent's. */
function resolve(location: string, name: string): string | undefined {
  let at = location;
  for (;;) {
    const candidate = at === "" ? `node_modules/${name}` : `${at}/node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (at === "") return undefined;
    const parent = at.lastIndexOf("/node_modules/");
    at = parent < 0 ? "" : at.slice(0, parent);
  }
}

describe("package-lock.json", () => {
  it("records every optional dependency, for every platform", () => {
    const missing: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolve(location, name)) missing.push(`${location || "(root)"} -> ${name}`);
      }
    }
    assert.deepEqual(missing, [], "regenerate the lock file: npm install --package-lock-only");
  });

  it("holds only packages that support every Node version package.json promises", () => {
    const oldest = semver.minVersion(project.engines.node)?.version;
    assert.ok(oldest, `package.json engines.node: ${project.engines.node}`);
    const promised = `>=${oldest} <${Number(oldest.split(".")[0]) + 1}`;
    const unsupported: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (location !== "" && node && !semver.subset(promised, node))
        unsupported.push(`${location}@${entry.version}: node ${node}`);
    }
    assert.deepEqual(unsupported, [], `packages that leave out Node ${promised}`);
  });
});
