/**
 * The checksum algorithm each client declared in its last inline create or update, to hash the next upload of an
 * object part that comes before its system metadata part (d1_client's order: pid, object, sysmeta) with SHA-256
 * and that algorithm alone, as when the system metadata comes first. Without a guess the upload is hashed with
 * MD5, SHA-1 and SHA-256 (src/store/algorithms.ts), and MD5 alone costs more than the other two together. A wrong
 * guess (the client changed its algorithm) costs one read of the staged file for the declared one; the digests
 * are never taken from the guess. A client is its subject and User-Agent; the most recent clients are kept.
 */
import type { FastifyRequest } from "fastify";
import { algorithmKey, canonicalAlgorithm } from "../store/index.ts";

const CLIENTS_KEPT = 1000;

export class DeclaredAlgorithms {
  private readonly byClient = new Map<string, string>();

  /** The algorithm this request's client declared last, when known. */
  guess(request: FastifyRequest): string | undefined {
    return this.byClient.get(clientOf(request));
  }

  /** Note the algorithm a parsed system metadata declared (an unsupported one is not kept). */
  remember(request: FastifyRequest, algorithm: string): void {
    const name = algorithmKey(algorithm) ? canonicalAlgorithm(algorithm) : undefined;
    if (!name) return;
    const client = clientOf(request);
    this.byClient.delete(client);
    this.byClient.set(client, name);
    if (this.byClient.size > CLIENTS_KEPT) {
      const oldest = this.byClient.keys().next().value;
      if (oldest !== undefined) this.byClient.delete(oldest);
    }
  }
}

function clientOf(request: FastifyRequest): string {
  return `${request.session.subject}\n${request.headers["user-agent"] ?? ""}`;
}
