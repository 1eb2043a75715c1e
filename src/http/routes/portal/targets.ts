/**
 * The `target` of MetacatUI's sign-in and sign-out links. MetacatUI appends the page's URL to `...&target=`
 * without encoding it, so a target holding `&` would be cut by a query parser: the text after `target=` is taken
 * whole when `target` is the last parameter, as the browser sent it.
 */
import type { FastifyRequest } from "fastify";

export function rawTarget(request: FastifyRequest): string | undefined {
  const url = request.raw.url ?? "";
  const query = url.indexOf("?");
  if (query < 0) return undefined;
  const search = url.slice(query + 1);
  const at = search.search(/(?:^|&)target=/);
  if (at < 0) return undefined;
  const start = search.indexOf("target=", at) + "target=".length;
  const rest = search.slice(start);
  // Later parameters of ours (provider, action) mean the target was encoded and ends at the next "&".
  const end = /&(?:provider|action)=/.exec(rest);
  const value = end ? rest.slice(0, end.index) : rest;
  try {
    return decodeURIComponent(value);
  } catch {
    return "";
  }
}
