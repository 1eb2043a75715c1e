#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 --expose-gc
// The d1node command. Runs the compiled dist/ when it is there and no source file is newer (`npm install`
// builds it: about 50 MB less memory than loading TypeScript); otherwise the sources, loaded directly.
// Memory during large uploads: --max-semi-space-size=4 (MiB) caps the young generation, which uploads otherwise
// grow with short-lived chunks, and MALLOC_ARENA_MAX=2 keeps the hasher threads from each taking a malloc arena
// (measured: peak RSS during a 1 GiB upload ~150 -> ~137 MB with 2 MiB; 116 MB with 4 MiB, which costs small
// gets ~10 % less CPU than 2 MiB: fewer scavenges, fewer in-flight objects copied; docs/performance.md).
// --expose-gc lets uploads ask for minor collections that free the body chunks they copied (src/store/young-collection.ts).
import { readdirSync, statSync } from "node:fs";

const root = new URL("../", import.meta.url);

function builtAndCurrent() {
  let built;
  try {
    built = statSync(new URL("dist/BUILT", root)).mtimeMs;
  } catch {
    return false;
  }
  for (const entry of readdirSync(new URL("src/", root), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > built) return false;
  }
  return true;
}

if (builtAndCurrent()) {
  await import("../dist/cli/main.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
