/** What browser sign-in keeps in the node's database (src/db/browser-sessions.ts implements it), so every serving process honours a session. */

export interface BrowserSessionRecord {
  subject: string;
  fullName: string | undefined;
  provider: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export interface SignInRequestRecord {
  provider: string;
  codeVerifier: string;
  nonce: string;
  /** Where the browser returns once signed in (already checked against the redirect rule). */
  target: string;
  expiresAt: number;
}

export interface SignedInPerson {
  subject: string;
  fullName?: string | undefined;
  givenName?: string | undefined;
  familyName?: string | undefined;
  email?: string | undefined;
  provider: string;
}

export interface BrowserSessionStore {
  create(idHash: string, session: BrowserSessionRecord): Promise<void>;
  /** The session, unless unknown, revoked or expired at `now`. */
  find(idHash: string, now: number): Promise<BrowserSessionRecord | undefined>;
  revoke(idHash: string): Promise<void>;
  /** Remove the sessions and sign-in requests expired at `now`. */
  removeExpired(now: number): Promise<void>;
  saveRequest(stateHash: string, request: SignInRequestRecord): Promise<void>;
  /** The request with this state, removed (a state is good once), unless unknown or expired. */
  takeRequest(stateHash: string, now: number): Promise<SignInRequestRecord | undefined>;
  /** Add or refresh a person's record; a value the provider did not give keeps the one recorded. */
  recordPerson(person: SignedInPerson, now: number): Promise<void>;
  findPerson(subject: string): Promise<SignedInPerson | undefined>;
  /** People whose subject, name or e-mail contains `text` (any case), by name, `start` and `count` a page. */
  findPeople(text: string, start: number, count: number): Promise<SignedInPerson[]>;
}
