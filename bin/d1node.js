#!/usr/bin/env node
// The d1node command. TypeScript sources are loaded directly (no build step).
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
