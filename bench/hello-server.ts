/**
 * Baseline: a bare Fastify server, measured in the same run as the node. `/` answers "hello world"; with a file
 * argument, `/page` answers that file's bytes as XML (a listObjects page served with no work behind it).
 */
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.get("/", async () => "hello world");
const pageFile = process.argv[2];
if (pageFile) {
  const page = readFileSync(pageFile);
  app.get("/page", async (_request, reply) => reply.type("text/xml").send(page));
}
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`serving http://127.0.0.1:${port}/\n`);
process.once("SIGTERM", () => app.close().then(() => process.exit(0)));
