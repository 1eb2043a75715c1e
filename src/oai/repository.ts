/** One OAI-PMH request answered: the verb's element, or its error, in the OAI-PMH response document. */
import type { NodeContext } from "../context/node-context.ts";
import { systemClock } from "../types/clock.ts";
import { identify, listMetadataFormats, listSets } from "./describe.ts";
import { echoesArguments, OaiError } from "./errors.ts";
import { getRecord } from "./get-record.ts";
import { list } from "./lists.ts";
import { type OaiRequest, parseOaiRequest } from "./request.ts";
import { errorBody, oaiDocument } from "./xml.ts";

/** The repository's base URL: the Member Node's base URL and /oai. */
export function oaiBaseUrl(ctx: NodeContext): string {
  return `${ctx.config.baseUrl}/oai`;
}

export async function answerOai(ctx: NodeContext, params: URLSearchParams): Promise<string> {
  const now = (ctx.clock ?? systemClock).now();
  const baseUrl = oaiBaseUrl(ctx);
  let request: OaiRequest | undefined;
  try {
    request = parseOaiRequest(params);
    return oaiDocument(now, { baseUrl, ...request }, await answer(ctx, request, baseUrl, now));
  } catch (error) {
    if (!(error instanceof OaiError)) throw error;
    const echo = request && echoesArguments(error) ? { baseUrl, ...request } : { baseUrl };
    return oaiDocument(now, echo, errorBody([error]));
  }
}

function answer(ctx: NodeContext, { verb, args }: OaiRequest, baseUrl: string, now: number): Promise<string> {
  switch (verb) {
    case "Identify":
      return identify(ctx, baseUrl);
    case "ListMetadataFormats":
      return listMetadataFormats(ctx, args);
    case "ListSets":
      return listSets(ctx, args, now);
    case "GetRecord":
      return getRecord(ctx, args);
    default:
      return list(ctx, verb, args, now);
  }
}
