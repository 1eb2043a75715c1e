/**
 * Baseline: a bare Fastify server, measured in the same run as the node. `/` answers "hello world"; with a file
 * argument, `/page` answers that file's bytes as XML (a listObjects page served with no work behind it); with
 * `--stream FILE`, `/stream` answers that file's bytes as a read stream in 1 MiB chunks (a large get with no
 * work behind it).
 */
import { createReadStream, readFileSync, statSync } from "node:fs";
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.get("/", async () => "hello world");
const streamAt = process.argv.indexOf("--stream");
const streamFile = streamAt > 0 ? process.argv[streamAt + 1] : undefined;
if (streamFile) {
  app.get("/stream", async (_request, reply) =>
    reply
      .type("application/octet-stream")
      .header("content-length", statSync(streamFile).size)
      .send(createReadStream(streamFile, { highWaterMark: 1 << 20 })),
  );
}
const pageFile = streamAt > 0 ? undefined : process.argv[2];
if (pageFile) {
  const page = readFileSync(pageFile);
  app.get("/page", async (_request, reply) => reply.type("text/xml").send(page));
}
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`serving http://127.0.0.1:${port}/\n`);
process.once("SIGTERM", () => app.close().then(() => process.exit(0)));
