/**
 * A hostile peer for tests (a local server): it plays the CN (system metadata of one object, a node list naming
 * itself as urn:node:EVIL) and the Member Node holding the object, whose bytes never end (256 MiB, as fast as
 * the client takes them). `sent()` is how many bytes of object it wrote before the client went away.
 */
import { serializeNodeList, serializeSystemMetadata } from "../../../src/types/index.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import { type LocalServer, listenLocal } from "./local-server.ts";

export const EVIL = "urn:node:EVIL";

export interface HostilePeer extends LocalServer {
  sent(): number;
}

export async function startHostilePeer(sysmeta: SystemMetadata): Promise<HostilePeer> {
  let sent = 0;
  const server: LocalServer = await listenLocal(async (request, response) => {
    const url = request.url ?? "";
    if (url.startsWith("/v2/meta/")) {
      response.end(serializeSystemMetadata({ ...sysmeta, authoritativeMemberNode: EVIL }, "v2"));
    } else if (url === "/v2/node") {
      const evil = {
        identifier: EVIL,
        name: "evil",
        description: "sends more than it should",
        baseURL: server.baseUrl,
        services: [],
        subjects: [`CN=${EVIL}`],
        contactSubjects: ["CN=someone"],
        replicate: false,
        synchronize: false,
        type: "mn" as const,
        state: "up" as const,
        properties: [],
      };
      response.end(serializeNodeList([evil], "v2"));
    } else {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, "a");
      while (sent < 256 * 1024 ** 2 && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) await new Promise((resolve) => response.once("drain", resolve));
      }
      response.end();
    }
  });
  return { ...server, sent: () => sent };
}
