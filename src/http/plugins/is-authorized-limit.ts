/**
 * MNAuthorization.isAuthorized: "NotAuthorized:1820 (also raised when the request comes from a blocked source)";
 * "A source that calls isAuthorized too often may be blocked temporarily" (API text, Limits). A source (client
 * address) may make `limit` calls per minute; the call that goes over blocks it for `blockSeconds`.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { NotAuthorized } from "../../errors/exceptions.ts";
import { apiMethodOf } from "../api-method.ts";

const WINDOW_MS = 60_000;

interface SourceState {
  windowStart: number;
  count: number;
  blockedUntil: number;
}

export class SourceLimiter {
  private readonly sources = new Map<string, SourceState>();
  private lastSweep: number;

  constructor(
    private readonly limit: number,
    private readonly blockMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  /** Counts one call; the time left blocked in ms (0 when the call may go ahead). */
  admit(source: string): number {
    const now = this.now();
    this.sweep(now);
    let state = this.sources.get(source);
    if (!state) {
      state = { windowStart: now, count: 0, blockedUntil: 0 };
      this.sources.set(source, state);
    }
    if (state.blockedUntil > now) return state.blockedUntil - now;
    if (now - state.windowStart >= WINDOW_MS) {
      state.windowStart = now;
      state.count = 0;
    }
    state.count += 1;
    if (state.count <= this.limit) return 0;
    state.blockedUntil = now + this.blockMs;
    state.windowStart = state.blockedUntil;
    state.count = 0;
    return this.blockMs;
  }

  /** Forget sources whose window and block are over, once per window. */
  private sweep(now: number): void {
    if (now - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = now;
    for (const [source, state] of this.sources) {
      if (state.blockedUntil <= now && now - state.windowStart >= WINDOW_MS) this.sources.delete(source);
    }
  }
}

export function registerIsAuthorizedLimit(
  app: FastifyInstance,
  settings: { limit: number; blockSeconds: number },
  clientAddress: (request: FastifyRequest) => string,
): void {
  if (settings.limit <= 0) return;
  const limiter = new SourceLimiter(settings.limit, settings.blockSeconds * 1000);
  app.addHook("onRequest", (request, _reply, done) => {
    if (!apiMethodOf(request).endsWith(".isAuthorized")) return done();
    const blockedMs = limiter.admit(clientAddress(request));
    if (blockedMs > 0) {
      throw new NotAuthorized(
        `This source called isAuthorized more than ${settings.limit} times a minute; ` +
          `it is blocked for ${Math.ceil(blockedMs / 1000)} s.`,
      );
    }
    done();
  });
}
