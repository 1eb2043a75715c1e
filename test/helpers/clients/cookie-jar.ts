/**
 * A browser's cookie handling, enough for sign-in tests: cookies kept per host and port, sent to paths under
 * their Path, replaced and removed as Set-Cookie says; redirects followed by hand, so each step can be seen.
 */
export interface Jar {
  cookies: Map<string, { value: string; path: string; host: string }>;
  /** One request with the jar's cookies; its Set-Cookie headers are kept. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** Follow redirects from `url` while `follow(next)` says so; returns the last response and its URL. */
  follow(
    url: string,
    init?: RequestInit,
    stop?: (next: URL) => boolean,
  ): Promise<{ response: Response; url: string }>;
  /** The Cookie header value this jar would send to `url`. */
  header(url: string): string;
}

export function cookieJar(): Jar {
  const cookies = new Map<string, { value: string; path: string; host: string }>();
  const header = (url: string) => {
    const u = new URL(url);
    return [...cookies.entries()]
      .filter(([, c]) => c.host === u.host && u.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join("; ");
  };
  const jar: Jar = {
    cookies,
    header,
    async fetch(url, init = {}) {
      const headers = new Headers(init.headers);
      const cookie = header(url);
      if (cookie !== "") headers.set("cookie", cookie);
      const response = await fetch(url, { ...init, headers, redirect: "manual" });
      const host = new URL(url).host;
      for (const line of response.headers.getSetCookie()) {
        const [pair = "", ...attributes] = line.split(";").map((s) => s.trim());
        const eq = pair.indexOf("=");
        const name = pair.slice(0, eq);
        const value = pair.slice(eq + 1);
        const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? "/";
        const expired = attributes.some(
          (a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()),
        );
        if (expired || value === "") cookies.delete(name);
        else cookies.set(name, { value, path, host });
      }
      return response;
    },
    async follow(url, init, stop = () => false) {
      let current = url;
      let response = await jar.fetch(current, init);
      for (let hops = 0; hops < 20 && response.status >= 300 && response.status < 400; hops++) {
        const next = new URL(response.headers.get("location") ?? "", current);
        if (stop(next)) return { response, url: current };
        await response.arrayBuffer();
        current = next.href;
        response = await jar.fetch(current);
      }
      return { response, url: current };
    },
  };
  return jar;
}
