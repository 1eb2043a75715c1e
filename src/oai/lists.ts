/**
 * ListIdentifiers and ListRecords (sections 4.3, 4.5): selective harvesting by from/until (inclusive, seconds or
 * days) and set, paged with resumption tokens (tokens.ts). A list's upper bound is fixed at its first request:
 * the start of that request's second (its responseDate), or the end of `until` if earlier. A record that
 * changes during the harvest moves past the bound and waits for the next incremental harvest (from= the
 * responseDate of this one's first request); so a harvest sees each record at most once, and no page shifts.
 */

import type { NodeContext } from "../context/node-context.ts";
import type { OaiListFilter, OaiRecordRow } from "../db/oai-records.ts";
import { parseOaiDate, wholeSecond } from "./dates.ts";
import { OaiError } from "./errors.ts";
import { type MetadataFormat, metadataFormat } from "./formats.ts";
import { headersXml, recordsXml } from "./records.ts";
import type { OaiArguments } from "./request.ts";
import { selectSet } from "./sets.ts";
import { decodeToken, encodeToken, type ListToken, TOKEN_LIFETIME_MS } from "./tokens.ts";
import { resumptionTokenXml } from "./xml.ts";

type ListVerb = "ListIdentifiers" | "ListRecords";

/** Records per response. */
export const PAGE_SIZE: Record<ListVerb, number> = { ListIdentifiers: 500, ListRecords: 100 };

interface ListState {
  metadataPrefix: string;
  set?: string;
  from?: number;
  until: number;
  after?: readonly [number, string];
  cursor: number;
  completeListSize?: number;
}

/** The list's state from the arguments of a first request. */
function firstRequest(args: OaiArguments, now: number): ListState {
  const from = args.from === undefined ? undefined : parseOaiDate("from", args.from);
  const until = args.until === undefined ? undefined : parseOaiDate("until", args.until);
  if (from && until && from.granularity !== until.granularity) {
    throw new OaiError("badArgument", "from and until must have the same granularity.");
  }
  const bound = Math.min(until?.end ?? Number.POSITIVE_INFINITY, wholeSecond(now));
  return {
    metadataPrefix: args.metadataPrefix as string,
    ...(args.set === undefined ? {} : { set: args.set }),
    ...(from ? { from: from.start } : {}),
    until: bound,
    cursor: 0,
  };
}

function listFilter(ctx: NodeContext, state: ListState, format: MetadataFormat): OaiListFilter | undefined {
  const selection = state.set === undefined ? { formats: [] } : selectSet(state.set, ctx.formats);
  if (!selection) return undefined;
  return {
    ...selection,
    formats: [...format.conditions, ...selection.formats],
    until: state.until,
    ...(state.from === undefined ? {} : { from: state.from }),
  };
}

export async function list(
  ctx: NodeContext,
  verb: ListVerb,
  args: OaiArguments,
  now: number,
): Promise<string> {
  const state: ListState =
    args.resumptionToken === undefined
      ? firstRequest(args, now)
      : (decodeToken(args.resumptionToken, verb, now) as ListToken);
  const format = metadataFormat(ctx.formats, state.metadataPrefix);
  if (!format) {
    throw new OaiError(
      "cannotDisseminateFormat",
      `This repository does not disseminate the metadata format "${state.metadataPrefix}" (see ListMetadataFormats).`,
    );
  }
  const filter = listFilter(ctx, state, format);
  if (!filter || (filter.from !== undefined && filter.from >= filter.until)) throw noRecords();
  const size = PAGE_SIZE[verb];
  const completeListSize = state.completeListSize ?? (await ctx.db.oai.count(filter));

  // Read pages until one gives an item (a record whose metadata cannot be made is left out) or the list ends.
  let after = state.after;
  let items: string[] = [];
  let more = false;
  let last: OaiRecordRow | undefined;
  do {
    const rows = await ctx.db.oai.page(filter, after, size + 1);
    more = rows.length > size;
    const page = rows.slice(0, size);
    last = page.at(-1) ?? last;
    if (last) after = [last.datestamp, last.pid];
    const made = verb === "ListRecords" ? await recordsXml(ctx, page, format) : await headersXml(ctx, page);
    items = made.filter((item): item is string => item !== undefined);
  } while (items.length === 0 && more);
  if (items.length === 0) throw noRecords();

  let tail = "";
  if (more && after) {
    const expires = now + TOKEN_LIFETIME_MS;
    const next: ListToken = {
      kind: verb,
      metadataPrefix: state.metadataPrefix,
      ...(state.set === undefined ? {} : { set: state.set }),
      ...(state.from === undefined ? {} : { from: state.from }),
      until: state.until,
      after,
      cursor: state.cursor + items.length,
      completeListSize,
      expires,
    };
    tail = resumptionTokenXml({ token: encodeToken(next), expires, completeListSize, cursor: state.cursor });
  } else if (args.resumptionToken !== undefined) {
    tail = resumptionTokenXml({ completeListSize, cursor: state.cursor });
  }
  return `<${verb}>${items.join("")}${tail}</${verb}>`;
}

const noRecords = () =>
  new OaiError("noRecordsMatch", "No record matches the combination of from, until, set and metadataPrefix.");
