/**
 * A stored XML document as the content of a record's `<metadata>`: its root element without the XML
 * declaration. A document that declares a DOCTYPE (its entities would not survive) or an encoding other than
 * UTF-8, or has no root element, is not embedded.
 */
export function embeddable(bytes: Buffer): string | undefined {
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const declaration = /^\s*<\?xml\s[^?]*\?>/.exec(text);
  if (declaration) {
    const encoding = /encoding\s*=\s*["']([^"']+)["']/.exec(declaration[0])?.[1];
    if (encoding !== undefined && !/^utf-?8$/i.test(encoding)) return undefined;
    text = text.slice(declaration[0].length);
  }
  const root = text.search(/<[A-Za-z_]/);
  if (root < 0 || /<!DOCTYPE/i.test(text.slice(0, root))) return undefined;
  return text.slice(root).trimEnd();
}
