/**
 * Resource maps name objects by their CN resolve URI ("https://cn.dataone.org/cn/v2/resolve/{pid}", the pid
 * percent-encoded) and usually also by a dcterms:identifier literal. The literal wins; without one the pid is
 * decoded from the resolve URI; any other URI stands for itself.
 */
const RESOLVE_SEGMENT = "/resolve/";

export function pidFromUri(uri: string): string {
  const at = uri.lastIndexOf(RESOLVE_SEGMENT);
  if (at < 0) return uri;
  const encoded = uri.slice(at + RESOLVE_SEGMENT.length).split("#")[0] ?? "";
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
