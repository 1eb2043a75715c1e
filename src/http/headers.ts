/** Header values must be Latin-1 without control characters; anything else is percent-encoded. */
export function headerSafe(value: string): string {
  // "` / ` inside a header value is read back as a newline" by the DataONE Python client: newlines become " / ".
  const flat = value.replace(/\r?\n/g, " / ");
  return flat.replace(/[^\x20-\x7e]/gu, (c) => encodeURIComponent(c));
}

/** RFC 6266 Content-Disposition with an ASCII fallback and the exact UTF-8 name in filename*. */
export function contentDisposition(fileName: string, kind: "attachment" | "inline" = "attachment"): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

/** HTTP-date (RFC 7231), the form Last-Modified uses. */
export function httpDate(date: Date): string {
  return date.toUTCString();
}
