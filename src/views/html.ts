/**
 * HTML built by construction: `html` is a tagged template whose interpolated values are escaped unless they are
 * already Html. Untrusted text can therefore only ever become text, never markup, an attribute or a script.
 * Templates quote every attribute; URLs from documents go through safeUrl first.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** Only http(s) and mailto URLs (and relative paths) may become links; anything else (javascript:, data:) is dropped. */
export function safeUrl(url: string): string | undefined {
  const trimmed = url.trim();
  if (/^(https?:|mailto:)/i.test(trimmed)) return trimmed;
  if (/^[/?#]/.test(trimmed) && !trimmed.startsWith("//")) return trimmed;
  return undefined;
}

/** A link when the URL is safe, plain text otherwise. */
export function link(url: string, text: HtmlValue): Html {
  const safe = safeUrl(url);
  return safe ? html`<a href="${safe}">${text}</a>` : html`${text}`;
}
