/** OAI-ORE resource maps: the one entry point other modules use. */

export { isResourceMapFormat, RESOURCE_MAP_FORMATS } from "./formats.ts";
export { pidFromUri } from "./identifiers.ts";
export { type ParseOptions, parseResourceMap } from "./parse.ts";
export { type Documents, type ResourceMap, ResourceMapError } from "./types.ts";
export { type ResourceMapContent, resourceMapXml } from "./write.ts";
