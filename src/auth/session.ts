/**
 * Who is calling. Every session holds `public`; authenticated sessions also hold `authenticatedUser`, and every
 * subject their credentials and the CN say they stand for (groups, equivalent identities, `verifiedUser`).
 *
 * Credentials: a client certificate (from the TLS handshake, or forwarded by a trusted proxy: its PEM or its
 * verified DN) and a bearer token. "A certificate or token that cannot be parsed or verified gives InvalidToken"
 * (API text, Authentication 3): a bad credential is never ignored, even next to a good one. With both a
 * certificate and a token, the certificate's subject is the primary subject and the token's subject joins the
 * session as an equivalent identity (as DataONE's Python Member Node does). A browser session (the sign-in
 * cookie, when the HTTP layer lets it count) joins the same way; an unknown, expired or revoked one is ignored
 * rather than refused (a browser keeps an old cookie; its reads must go on as public). Bearer tokens from a
 * configured OpenID Connect provider are verified with that provider's keys (oidc/access-tokens.ts).
 * No credentials: `public` only.
 */
import type { KeyObject, X509Certificate } from "node:crypto";
import { subjectFromDnString } from "../certificates/dn.ts";
import {
  type CertificateIdentity,
  readCertificate,
  tlsRejection,
  verifyForwardedCertificate,
} from "../certificates/parse.ts";
import type { Config } from "../config/config.ts";
import { InvalidToken } from "../errors/exceptions.ts";
import type { BrowserSessions } from "./browser-sessions.ts";
import type { SubjectInfoSource } from "./cn-identity.ts";
import { isNodeSubject } from "./cn-subjects.ts";
import type { TokenKeySource } from "./cn-token-keys.ts";
import type { ProviderTokens } from "./oidc/access-tokens.ts";
import type { Refresher } from "./refreshing.ts";
import { AUTHENTICATED_USER, expandSubjects, PUBLIC, VERIFIED_USER } from "./subjects.ts";
import { type VerifiedToken, verifyTokenClaims } from "./tokens.ts";

export { AUTHENTICATED_USER, PUBLIC, VERIFIED_USER };

export interface Session {
  /** The primary subject ("public" when anonymous). */
  subject: string;
  /** The primary subject and every subject it stands for. */
  subjects: ReadonlySet<string>;
  authenticated: boolean;
  /** A node administrator: every right on this node. */
  isAdmin: boolean;
  /** A Coordinating Node: trusted for the CN-only calls. */
  isCn: boolean;
}

type RoleConfig = Pick<Config, "adminSubjects" | "cnSubjects">;

/** Symbolic subjects never make a caller an administrator or a CN. */
const SYMBOLIC = new Set([PUBLIC, AUTHENTICATED_USER, VERIFIED_USER]);

/** One for every anonymous caller (frozen; its subjects are a ReadonlySet): no allocation per request. */
const ANONYMOUS: Session = Object.freeze({
  subject: PUBLIC,
  subjects: new Set([PUBLIC]),
  authenticated: false,
  isAdmin: false,
  isCn: false,
});

export function anonymousSession(): Session {
  return ANONYMOUS;
}

/** An authenticated session for `subject` and the further subjects it stands for. */
export function sessionFor(subject: string, config: RoleConfig, more: Iterable<string> = []): Session {
  const subjects = new Set([subject, ...more, AUTHENTICATED_USER, PUBLIC]);
  const holds = (list: readonly string[]) => list.some((s) => !SYMBOLIC.has(s) && subjects.has(s));
  return {
    subject,
    subjects,
    authenticated: true,
    isAdmin: holds(config.adminSubjects),
    isCn: holds(config.cnSubjects),
  };
}

/** A client certificate as the HTTP layer found it. */
export type ClientCertificate =
  /** From the TLS handshake; `rejection` is the TLS stack's verification error, if any. */
  | { source: "tls"; der: Buffer; rejection?: string | undefined; connection: object }
  /** Forwarded by a trusted proxy; `verdict` is the proxy's verification result header, if sent. */
  | { source: "proxy"; der: Buffer; verdict?: string | undefined };

export interface Credentials {
  certificate?: ClientCertificate | undefined;
  /** A verified client DN forwarded by a trusted proxy without the certificate. */
  dn?: string | undefined;
  /** The Authorization header. */
  authorization?: string | undefined;
  /** The browser session cookie's value, when it may count for this request (plugins/sessions.ts). */
  browserSession?: string | undefined;
}

export interface SessionResolver {
  resolve(credentials: Credentials): Promise<Session>;
  /** The session when it is known without waiting (an anonymous caller), else undefined: ask resolve(). */
  resolveNow?(credentials: Credentials): Session | undefined;
}

function presentsNothing({ certificate, dn, authorization, browserSession }: Credentials): boolean {
  return (
    !certificate &&
    dn === undefined &&
    browserSession === undefined &&
    (authorization === undefined || authorization.trim() === "")
  );
}

export interface ResolverOptions {
  /**
   * Public keys whose signatures make a bearer token valid; or a source that can fetch them again (the CN's keys,
   * cn-token-keys.ts), asked once more when a token does not verify.
   */
  tokenKeys: readonly KeyObject[] | TokenKeySource;
  /** Longest bearer token lifetime accepted, seconds (config maxTokenLifetime); 0 or unset: no cap. */
  maxTokenLifetime?: number;
  /** CAs a proxy-forwarded certificate must chain to (the TLS stack checks handshake certificates itself). */
  clientCas?: readonly X509Certificate[];
  /** Groups and equivalent identities from the CN (CNIdentity.getSubjectInfo), when the node has a CN. */
  cn?: SubjectInfoSource | undefined;
  /**
   * The CN subjects taken from the CN's node list (cn-subjects.ts), asked again when a caller with a node
   * subject is not among them (perhaps a CN added since the last fetch).
   */
  cnSubjects?: Refresher;
  /** Sessions of people signed in through a browser. */
  browserSessions?: Pick<BrowserSessions, "lookup" | "isOpen">;
  /**
   * This node's identifier: a token it handed to a signed-in browser (one naming this node's sign-in) is
   * refused once that sign-in ends. Tokens naming another node's sign-in are that node's to judge.
   */
  nodeId?: string;
  /** Access tokens of the configured OpenID Connect providers. */
  providerTokens?: ProviderTokens;
}

export function createSessionResolver(config: RoleConfig, options: ResolverOptions): SessionResolver {
  const byConnection = new WeakMap<object, CertificateIdentity>();
  const forwarded = new Map<string, { identity: CertificateIdentity; validTo: number }>();

  const certificateIdentity = (cert: ClientCertificate): CertificateIdentity => {
    if (cert.source === "tls") {
      if (cert.rejection) throw new InvalidToken(tlsRejection(cert.rejection));
      let identity = byConnection.get(cert.connection);
      if (!identity) {
        identity = readCertificate(cert.der);
        byConnection.set(cert.connection, identity);
      }
      return identity;
    }
    // Apache sends SUCCESS, GENEROUS (optional_no_ca, not verified), NONE or FAILED:reason; nginx SUCCESS, NONE
    // or FAILED:reason. Unverified by the proxy is fine only when the node checks the CA itself.
    const verdict = cert.verdict?.trim() ?? "";
    if (verdict.startsWith("FAILED")) {
      throw new InvalidToken(
        `The proxy reports that the client certificate failed verification (${verdict}).`,
      );
    }
    if (verdict === "GENEROUS" && (options.clientCas ?? []).length === 0) {
      throw new InvalidToken(
        "The proxy did not verify the client certificate and this node has no CA bundle.",
      );
    }
    const key = cert.der.toString("base64");
    const known = forwarded.get(key);
    if (known && Date.now() <= known.validTo) return known.identity;
    const { validTo } = verifyForwardedCertificate(cert.der, options.clientCas ?? []);
    const identity = readCertificate(cert.der);
    if (forwarded.size >= 1000) forwarded.clear();
    forwarded.set(key, { identity, validTo: validTo.getTime() });
    return identity;
  };

  const verifiedToken = async (authorization: string): Promise<VerifiedToken> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw new InvalidToken("The Authorization header must have the form: Bearer <token>.");
    if (options.providerTokens?.isProviders(match[1])) {
      return { subject: await options.providerTokens.verify(match[1]) };
    }
    const verify = { maxLifetime: options.maxTokenLifetime ?? 0 };
    const source = options.tokenKeys;
    if (Array.isArray(source)) return verifyTokenClaims(match[1], source, verify);
    const ring = source as TokenKeySource;
    try {
      return await verifyTokenClaims(match[1], ring.current(), verify);
    } catch (error) {
      // Perhaps signed with a key the CN rotated in since the last fetch.
      if (!(error instanceof InvalidToken) || !(await ring.refresh())) throw error;
      return verifyTokenClaims(match[1], ring.current(), verify);
    }
  };

  const tokenSubject = async (authorization: string): Promise<string> => {
    const token = await verifiedToken(authorization);
    const signIn = token.browserSession;
    if (signIn !== undefined && signIn.node === options.nodeId) {
      const open = (await options.browserSessions?.isOpen(signIn.key)) ?? false;
      if (!open) {
        throw new InvalidToken(
          "The bearer token belongs to a sign-in that has ended (signed out or expired); sign in again.",
        );
      }
    }
    return token.subject;
  };

  return {
    resolveNow: (credentials) => (presentsNothing(credentials) ? anonymousSession() : undefined),
    async resolve(credentials) {
      const { certificate, dn, authorization } = credentials;
      const hasToken = authorization !== undefined && authorization.trim() !== "";
      if (presentsNothing(credentials)) return anonymousSession();
      const authenticated: string[] = [];
      const subjects = new Set<string>();
      if (certificate) {
        const identity = certificateIdentity(certificate);
        authenticated.push(identity.subject);
        if (identity.subjectInfo) {
          for (const s of expandSubjects(identity.subject, identity.subjectInfo)) subjects.add(s);
        }
      } else if (dn !== undefined) {
        const subject = subjectFromDnString(dn);
        if (subject === undefined)
          throw new InvalidToken("The client DN forwarded by the proxy is not a DN.");
        authenticated.push(subject);
      }
      if (hasToken) authenticated.push(await tokenSubject(authorization));
      if (credentials.browserSession !== undefined && options.browserSessions) {
        const browser = await options.browserSessions.lookup(credentials.browserSession);
        if (browser) authenticated.push(browser.subject);
      }
      const [primary] = authenticated;
      if (primary === undefined) return anonymousSession();
      if (options.cn) {
        const infos = await Promise.all(authenticated.map((s) => options.cn?.lookup(s)));
        infos.forEach((info, i) => {
          const subject = authenticated[i];
          if (info && subject !== undefined) for (const s of expandSubjects(subject, info)) subjects.add(s);
        });
      }
      const session = sessionFor(primary, config, [...authenticated, ...subjects]);
      if (session.isCn || !options.cnSubjects || !authenticated.some(isNodeSubject)) return session;
      return (await options.cnSubjects.refresh())
        ? sessionFor(primary, config, [...authenticated, ...subjects])
        : session;
    },
  };
}
