/**
 * 0002-access-rows: access rows keyed by (pid, subject): the rights holder and every granted subject, once each
 * with its strongest permission; removed with their object (foreign key, cascading).
 */
import { sql } from "kysely";
import { idType, type Migration } from "../migration.ts";

export const accessRowsMigration: Migration = {
  name: "0002-access-rows",
  async up(db, dialect) {
    await db.schema
      .createTable("access_rules_next")
      .addColumn("pid", idType(dialect), (c) => c.notNull())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("permission", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("access_rules_key", ["pid", "subject"])
      .addForeignKeyConstraint("access_rules_object", ["pid"], "objects", ["pid"], (c) =>
        c.onDelete("cascade"),
      )
      .$call((table) => (dialect === "sqlite" ? table.modifyEnd(sql`without rowid`) : table))
      .execute();
    await sql`insert into access_rules_next (pid, subject, permission)
      select pid, subject, case max(strength) when 3 then 'changePermission' when 2 then 'write' else 'read' end
      from (
        select pid, subject, case permission when 'changePermission' then 3 when 'write' then 2 else 1 end as strength
        from access_rules where pid in (select pid from objects)
        union all
        select pid, rights_holder, 3 from objects
      ) as granted
      group by pid, subject`.execute(db);
    await db.schema.dropTable("access_rules").execute();
    await db.schema.alterTable("access_rules_next").renameTo("access_rules").execute();
    await db.schema
      .createIndex("access_rules_subject")
      .on("access_rules")
      .columns(["subject", "pid"])
      .execute();
  },
};
