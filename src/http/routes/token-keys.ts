/**
 * `GET {basePath}/token-keys`: the public key that signs this node's bearer tokens (PEM, SubjectPublicKeyInfo).
 * Outside the DataONE API (which leaves open how a CN's token key reaches Member Nodes): Member Nodes whose
 * `cnBaseUrl` names a d1node CN fetch it from here, so no key is copied by hand; `d1node keys export` prints
 * the same text for operators who pin it with `trustedTokenKeys`.
 */
import type { FastifyInstance } from "fastify";
import { loadOrCreateSigningKey } from "../../auth/keys.ts";
import type { Config } from "../../config/config.ts";

export function tokenKeysPem(config: Pick<Config, "dataDir">): string {
  const { publicKey } = loadOrCreateSigningKey(config.dataDir);
  return publicKey.export({ type: "spki", format: "pem" }).toString();
}

export function registerTokenKeysRoute(
  app: FastifyInstance,
  config: Pick<Config, "dataDir" | "basePath">,
): void {
  const pem = tokenKeysPem(config);
  app.get(
    `${config.basePath}/token-keys`,
    { config: { apiMethod: "MNCore.ping" } },
    async (_request, reply) =>
      reply.type("application/x-pem-file").header("cache-control", "max-age=300").send(pem),
  );
}
