/**
 * Result grouping: group=true&group.field=F puts the matched documents in groups by F's value (in result
 * order); rows/start page the groups, group.limit (default 1) documents per group, group.ngroups=true counts
 * them. Documents without the field form the group with groupValue null.
 */

import type { Condition } from "../query/query-sql.ts";
import type { GroupRequest, SearchRequest } from "../query/request.ts";
import { selectFields } from "../query/select-fields.ts";
import type { AnswerLinks } from "../schema/data-url.ts";
import type { StoredDoc } from "../schema/index-rows.ts";
import type { SearchIndexHandle } from "./search.ts";

export interface Group {
  groupValue: string | null;
  doclist: { numFound: number; start: number; docs: StoredDoc[] };
}

export type Grouped = Record<string, { matches: number; ngroups?: number; groups: Group[] }>;

export async function groupResults(
  index: SearchIndexHandle,
  request: SearchRequest,
  group: GroupRequest,
  where: Condition,
  order: Condition,
  links?: AnswerLinks,
): Promise<Grouped> {
  const { field, limit: perGroup } = group;
  const { rows, start } = request;
  const matched = await index.db.search.groupsOf(where, field, order);
  const groups = new Map<string | null, string[]>();
  for (const { pid, g } of matched) {
    const list = groups.get(g) ?? [];
    list.push(pid);
    groups.set(g, list);
  }
  const page = [...groups].slice(start, start + rows);
  const stored = await index.db.search.readStoredDocs(page.flatMap(([, pids]) => pids.slice(0, perGroup)));
  const pick = selectFields(request.fields, links);
  const result: Grouped = {
    [field]: {
      matches: matched.length,
      ...(group.ngroups ? { ngroups: groups.size } : {}),
      groups: page.map(([value, pids]) => ({
        groupValue: value,
        doclist: {
          numFound: pids.length,
          start: 0,
          docs: pids.slice(0, perGroup).flatMap((pid) => {
            const doc = stored.get(pid);
            return doc ? [pick(doc)] : [];
          }),
        },
      })),
    },
  };
  return result;
}
