/**
 * Where a browser may be sent after signing in or out: a URL of the node's own origin or of an origin the
 * operator lists (corsOrigins), or a path on the node's origin. Anything else would make the node an open
 * redirect (a link "sign in at the node" that lands on a look-alike page). Refused: other origins, schemes other
 * than http(s), protocol-relative forms (`//evil`, `/\evil`), backslashes and control characters anywhere
 * (browsers read `\` as `/`), and credentials in the URL.
 */
export type RedirectRule = (target: string) => string | undefined;

/** `origins()` is read per call: a node started on port 0 learns its own origin once listening. */
export function redirectRule(origins: () => Iterable<string>): RedirectRule {
  return (raw) => {
    const target = onceDecoded(raw.trim());
    if (target === "" || target.includes("\\") || hasControlCharacter(target)) return undefined;
    const allowed = new Set(origins());
    if (target.startsWith("/")) {
      if (target.startsWith("//")) return undefined;
      const [own] = allowed;
      if (own === undefined) return undefined;
      const url = new URL(target, own);
      return url.origin === own ? url.href : undefined;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
    if (url.username !== "" || url.password !== "") return undefined;
    // Written as the origin itself ("https://host//evil" keeps the host; "https:evil" does not parse as the origin).
    if (!target.toLowerCase().startsWith(`${url.origin.toLowerCase()}`)) return undefined;
    return allowed.has(url.origin) ? url.href : undefined;
  };
}

/** A target given percent-encoded once more than the query string needs (`https%3A%2F%2F...`) is decoded. */
function onceDecoded(target: string): string {
  if (!/^(?:https?%3A|%2F)/i.test(target)) return target;
  try {
    return decodeURIComponent(target);
  } catch {
    return "";
  }
}

export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
