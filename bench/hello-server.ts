/** Baseline: a bare Fastify hello-world, measured in the same run as the node. */
import Fastify from "fastify";

const app = Fastify({ logger: false });
app.get("/", async () => "hello world");
await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`serving http://127.0.0.1:${port}/\n`);
process.once("SIGTERM", () => app.close().then(() => process.exit(0)));
