/**
 * 0020-node-pending-subjects: the subjects a registered node asked for (updateNodeCapabilities) that wait for an
 * administrator's approval, as a JSON array; null when none wait. The node's document keeps its approved
 * subjects, which stay in force until then.
 */
import type { Migration } from "../migration.ts";

export const nodePendingSubjectsMigration: Migration = {
  name: "0020-node-pending-subjects",
  async up(db) {
    await db.schema.alterTable("cn_nodes").addColumn("pending_subjects", "text").execute();
  },
};
