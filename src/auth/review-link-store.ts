/** What reviewer links keep in the node's database (src/db/review-links.ts implements it): read on every use, so every serving process agrees at once on a revocation or an expiry. */

export interface ReviewLinkRecord {
  /** The link's public id: named in the event log (`reviewLink:<id>`) and used to revoke it. */
  id: string;
  /** The pid the link addresses: a resource map or a metadata document. */
  pid: string;
  /** The resource map whose members the link opens (the addressed one, or the one aggregating the metadata). */
  packagePid: string | undefined;
  /** The rights holder of the addressed object when the link was made: the link ends if that changes. */
  rightsHolder: string;
  createdBy: string;
  /** Names of people are hidden from everything served through the link. */
  anonymise: boolean;
  /** The owner's note of whom the link is for. */
  label: string | undefined;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  revokedAt: number | undefined;
}

export interface ReviewLinkStore {
  create(link: ReviewLinkRecord, secretHash: string): Promise<void>;
  /** The link and its secret's hash, whatever its state (the caller checks expiry and revocation). */
  find(id: string): Promise<{ link: ReviewLinkRecord; secretHash: string } | undefined>;
  /** Links addressing `pid` (every pid when undefined) whose rights holder is one of `rightsHolders` (any when undefined), newest first. */
  list(filter: {
    pid?: string | undefined;
    rightsHolders?: readonly string[] | undefined;
  }): Promise<ReviewLinkRecord[]>;
  /** Marks the link revoked (once: a second call keeps the first time). */
  revoke(id: string, at: number): Promise<void>;
}
