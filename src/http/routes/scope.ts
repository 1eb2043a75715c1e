/** What each MN route file receives: the node context and the API version prefix it serves. */

import type { NodeContext } from "../../context/node-context.ts";
import type { ApiVersion } from "../../types/sysmeta.ts";

export interface RouteScope {
  ctx: NodeContext;
  version: ApiVersion;
  /** Absolute path of the version root, e.g. "/mn/v2". */
  prefix: string;
}
