/** The Coordinating Node's own tables: node registry, identifier reservations, synchronize queue, accounts. */
import type { Kysely } from "kysely";
import { isUniqueViolation } from "../errors.ts";
import type { Tables } from "../schema.ts";
import { type CnIdentityRepository, cnIdentityRepository } from "./identities.ts";

export interface RegisteredNode {
  nodeId: string;
  baseUrl: string;
  /** The Node document as v2 XML. */
  nodeXml: string;
  approved: boolean;
  registeredBy: string;
  /** The subjects the node asked for, waiting for an administrator's approval (its document keeps the old). */
  pendingSubjects?: string[];
}

export interface Reservation {
  id: string;
  /** The reserving principal; "" for an identifier retired by CNCore.delete. */
  subject: string;
}

export interface AccountRow {
  subject: string;
  /** The Person as JSON. */
  person: string;
  verified: boolean;
}

export interface CnRepository {
  identities: CnIdentityRepository;
  nodes(options: { approvedOnly: boolean }): Promise<RegisteredNode[]>;
  node(nodeId: string): Promise<RegisteredNode | undefined>;
  nodeByBaseUrl(baseUrl: string): Promise<RegisteredNode | undefined>;
  /** false when the node id or base URL is taken. */
  addNode(node: RegisteredNode): Promise<boolean>;
  /**
   * Replaces the document and base URL only when the stored document is still `expectedXml` (compare-and-set):
   * "changed" when another writer changed it meanwhile (or the node is gone), "baseUrlTaken" when another node
   * already has this base URL.
   */
  replaceNodeXml(
    nodeId: string,
    expectedXml: string,
    baseUrl: string,
    nodeXml: string,
  ): Promise<"replaced" | "changed" | "baseUrlTaken">;
  /**
   * Writes `nodeXml` only when the stored document is still `expectedXml` (compare-and-set); false when another
   * writer changed it meanwhile (or the node is gone), so that the caller re-reads and applies its change again.
   */
  swapNodeXml(nodeId: string, expectedXml: string, nodeXml: string): Promise<boolean>;
  /** false when no such node is registered. */
  approveNode(nodeId: string): Promise<boolean>;
  /** Records the subjects a node asked for until an administrator approves them (undefined: none wait). */
  setPendingSubjects(nodeId: string, subjects: string[] | undefined): Promise<void>;
  /** Removes the node's entry (`pendingOnly`: only while it waits for approval); false when none was removed. */
  removeNode(nodeId: string, options: { pendingOnly: boolean }): Promise<boolean>;
  reservation(id: string): Promise<Reservation | undefined>;
  /** Which of these identifiers are reserved or retired (one query; keep the list short). */
  reservedAmong(ids: readonly string[]): Promise<Set<string>>;
  /** How many identifiers `subject` holds reserved and not yet in use, counted up to `atMost`. */
  openReservations(subject: string, atMost: number): Promise<number>;
  /** false when the identifier is already reserved (or retired). */
  reserve(id: string, subject: string): Promise<boolean>;
  releaseReservation(id: string): Promise<void>;
  /** Mark an identifier as used forever (after CNCore.delete). */
  retire(id: string): Promise<void>;
  queueSync(pid: string, nodeId: string, requestedBy: string): Promise<void>;
  syncTasks(): Promise<{ pid: string; nodeId: string; requestedBy: string }[]>;
  /**
   * Deletes the requests recorded before `queuedBefore` whose task (of kind `taskKind`, keyed by the PID) is
   * finished: no longer waiting or running. Returns how many were deleted.
   */
  pruneSyncRequests(queuedBefore: Date, taskKind: string): Promise<number>;
  account(subject: string): Promise<AccountRow | undefined>;
  /** false when the subject is already registered. */
  addAccount(account: AccountRow): Promise<boolean>;
  replaceAccount(account: AccountRow): Promise<void>;
  accounts(): Promise<AccountRow[]>;
}

async function inserted(work: Promise<unknown>): Promise<boolean> {
  try {
    await work;
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

export function cnRepository(db: Kysely<Tables>): CnRepository {
  const toNode = (r: Tables["cn_nodes"]): RegisteredNode => ({
    nodeId: r.node_id,
    baseUrl: r.base_url,
    nodeXml: r.node_xml,
    approved: Number(r.approved) === 1,
    registeredBy: r.registered_by,
    ...(r.pending_subjects ? { pendingSubjects: JSON.parse(r.pending_subjects) as string[] } : {}),
  });
  const toAccount = (r: Tables["cn_accounts"]): AccountRow => ({
    subject: r.subject,
    person: r.person,
    verified: Number(r.verified) === 1,
  });
  return {
    identities: cnIdentityRepository(db),
    async nodes({ approvedOnly }) {
      let query = db.selectFrom("cn_nodes").selectAll().orderBy("node_id");
      if (approvedOnly) query = query.where("approved", "=", 1);
      return (await query.execute()).map(toNode);
    },
    async node(nodeId) {
      const row = await db
        .selectFrom("cn_nodes")
        .selectAll()
        .where("node_id", "=", nodeId)
        .executeTakeFirst();
      return row ? toNode(row) : undefined;
    },
    async nodeByBaseUrl(baseUrl) {
      const row = await db
        .selectFrom("cn_nodes")
        .selectAll()
        .where("base_url", "=", baseUrl)
        .executeTakeFirst();
      return row ? toNode(row) : undefined;
    },
    addNode(node) {
      return inserted(
        db
          .insertInto("cn_nodes")
          .values({
            node_id: node.nodeId,
            base_url: node.baseUrl,
            node_xml: node.nodeXml,
            approved: node.approved ? 1 : 0,
            registered_by: node.registeredBy,
            registered_at: Date.now(),
          })
          .execute(),
      );
    },
    async replaceNodeXml(nodeId, expectedXml, baseUrl, nodeXml) {
      try {
        const result = await db
          .updateTable("cn_nodes")
          .set({ base_url: baseUrl, node_xml: nodeXml })
          .where("node_id", "=", nodeId)
          .where("node_xml", "=", expectedXml)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1 ? "replaced" : "changed";
      } catch (error) {
        if (isUniqueViolation(error)) return "baseUrlTaken";
        throw error;
      }
    },
    async swapNodeXml(nodeId, expectedXml, nodeXml) {
      const result = await db
        .updateTable("cn_nodes")
        .set({ node_xml: nodeXml })
        .where("node_id", "=", nodeId)
        .where("node_xml", "=", expectedXml)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async approveNode(nodeId) {
      const result = await db
        .updateTable("cn_nodes")
        .set({ approved: 1 })
        .where("node_id", "=", nodeId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async setPendingSubjects(nodeId, subjects) {
      await db
        .updateTable("cn_nodes")
        .set({ pending_subjects: subjects ? JSON.stringify(subjects) : null })
        .where("node_id", "=", nodeId)
        .execute();
    },
    async removeNode(nodeId, { pendingOnly }) {
      let query = db.deleteFrom("cn_nodes").where("node_id", "=", nodeId);
      if (pendingOnly) query = query.where("approved", "=", 0);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    async reservation(id) {
      const row = await db.selectFrom("cn_reservations").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? { id: row.id, subject: row.subject } : undefined;
    },
    async reservedAmong(ids) {
      if (ids.length === 0) return new Set();
      const rows = await db.selectFrom("cn_reservations").select("id").where("id", "in", ids).execute();
      return new Set(rows.map((r) => r.id));
    },
    async openReservations(subject, atMost) {
      const rows = await db
        .selectFrom("cn_reservations as r")
        .select("r.id")
        .where("r.subject", "=", subject)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom("identifiers as i").select("i.id").whereRef("i.id", "=", "r.id"))),
        )
        .limit(atMost)
        .execute();
      return rows.length;
    },
    reserve(id, subject) {
      return inserted(
        db.insertInto("cn_reservations").values({ id, subject, reserved_at: Date.now() }).execute(),
      );
    },
    async releaseReservation(id) {
      await db.deleteFrom("cn_reservations").where("id", "=", id).where("subject", "<>", "").execute();
    },
    async retire(id) {
      await db
        .insertInto("cn_reservations")
        .values({ id, subject: "", reserved_at: Date.now() })
        .onConflict((oc) => oc.column("id").doUpdateSet({ subject: "" }))
        .execute();
    },
    async queueSync(pid, nodeId, requestedBy) {
      await db
        .insertInto("cn_sync_tasks")
        .values({ pid, node_id: nodeId, requested_by: requestedBy, queued_at: Date.now() })
        .execute();
    },
    async syncTasks() {
      const rows = await db.selectFrom("cn_sync_tasks").selectAll().orderBy("id").execute();
      return rows.map((r) => ({ pid: r.pid, nodeId: r.node_id, requestedBy: r.requested_by }));
    },
    async pruneSyncRequests(queuedBefore, taskKind) {
      const result = await db
        .deleteFrom("cn_sync_tasks")
        .where("queued_at", "<", queuedBefore.getTime())
        .where(({ not, exists, selectFrom, ref }) =>
          not(
            exists(
              selectFrom("tasks")
                .select("tasks.id")
                .where("tasks.kind", "=", taskKind)
                .whereRef("tasks.key", "=", ref("cn_sync_tasks.pid"))
                .where("tasks.state", "in", ["ready", "running"]),
            ),
          ),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async account(subject) {
      const row = await db
        .selectFrom("cn_accounts")
        .selectAll()
        .where("subject", "=", subject)
        .executeTakeFirst();
      return row ? toAccount(row) : undefined;
    },
    addAccount(account) {
      return inserted(
        db
          .insertInto("cn_accounts")
          .values({ subject: account.subject, person: account.person, verified: account.verified ? 1 : 0 })
          .execute(),
      );
    },
    async replaceAccount(account) {
      await db
        .updateTable("cn_accounts")
        .set({ person: account.person, verified: account.verified ? 1 : 0 })
        .where("subject", "=", account.subject)
        .execute();
    },
    async accounts() {
      return (await db.selectFrom("cn_accounts").selectAll().orderBy("subject").execute()).map(toAccount);
    },
  };
}
