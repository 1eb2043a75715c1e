#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 --expose-gc
// The d1node command. Runs the compiled dist/ when it is there and no source file is newer (`npm install`
// builds it: about 50 MB less memory than loading TypeScript); otherwise the sources, loaded directly.
// Memory during large uploads: --max-semi-space-size=4 (MiB) caps the young generation, which uploads otherwise
// grow with short-lived chunks, and MALLOC_ARENA_MAX=2 keeps the hasher threads from each taking a malloc arena
// (lower peak memory during large uploads, and fewer scavenges on small gets; docs/decisions.md, "Hot paths").
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
