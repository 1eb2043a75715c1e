/** A plain HTTP server on a free local port for tests of clients; close() ends its connections too. */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalServer {
  baseUrl: string;
  close(): Promise<void>;
}

export async function listenLocal(handler: RequestListener): Promise<LocalServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
