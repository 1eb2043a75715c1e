/** FAIR Signposting on an object's bytes (MNRead.get, describe): the Link header value, from the pid alone. */
import { linkHeader, objectSignposts } from "./signposts.ts";
import { landingUrls } from "./urls.ts";

/** `isMetadata`: the bytes describe the landing page's dataset (rel describes), else they are in it (collection). */
export function objectLinkHeader(baseUrl: string, pid: string, isMetadata: boolean): string {
  return linkHeader(objectSignposts(landingUrls(baseUrl), pid, isMetadata));
}
