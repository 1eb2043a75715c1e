/**
 * 0010-identifiers: one row per identifier in use, PIDs and SIDs under one primary key, so that the database
 * itself refuses a second series with the same SID, a SID equal to a PID and a PID equal to a SID, however many
 * writers race. A series' row keeps its HEAD PID.
 * Filled from the objects. A database written before the rule may hold several chains under one SID: the SID goes
 * to the newest head (latest dateUploaded, then the greatest PID: the head getSystemMetadata(SID) named until
 * now); a SID that is also some object's PID is left to the PID.
 */
import { sql } from "kysely";
import { idType, type Migration } from "../migration.ts";

export const identifiersMigration: Migration = {
  name: "0010-identifiers",
  async up(db, dialect) {
    await db.schema
      .createTable("identifiers")
      .addColumn("id", idType(dialect), (c) => c.primaryKey())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("head", idType(dialect))
      .execute();
    await sql`insert into identifiers (id, kind, head) select pid, 'pid', null from objects`.execute(db);
    // A head: a member of the series not obsoleted by another member.
    await sql`insert into identifiers (id, kind, head)
      select sid, 'sid', pid from (
        select o.sid, o.pid,
          row_number() over (partition by o.sid order by o.date_uploaded desc, o.pid desc) as rank
        from objects o
        where o.sid is not null
          and not exists (select 1 from objects m where m.pid = o.obsoleted_by and m.sid = o.sid)
          and not exists (select 1 from objects p where p.pid = o.sid)
      ) as heads
      where rank = 1`.execute(db);
  },
};
