/**
 * File names inside the bag: the member's sysmeta fileName (else its identifier plus the format's usual
 * extension), made path-safe and unique. Safe means one path segment, portable to Windows and macOS, and never
 * needing the percent-encoding BagIt 1.0 asks of CR, LF and "%" in manifest paths.
 */
const UNSAFE = /[\p{Cc}<>:"/\\|?*%]/gu;
const MAX_NAME_LENGTH = 180;

export function safeFileName(name: string): string {
  let safe = name
    .normalize("NFC")
    .replace(UNSAFE, "_")
    .replace(/[. ]+$/, "");
  if (safe.startsWith(".")) safe = `_${safe.slice(1)}`;
  if (safe === "") safe = "object";
  if (safe.length > MAX_NAME_LENGTH) {
    const dot = safe.lastIndexOf(".");
    const extension = dot > 0 && safe.length - dot <= 16 ? safe.slice(dot) : "";
    safe = safe.slice(0, MAX_NAME_LENGTH - extension.length) + extension;
  }
  return safe;
}

/** Hands out names once each, case-insensitively: "a.csv", then "a_2.csv", "a_3.csv", ... */
export class UniqueNames {
  readonly #taken = new Set<string>();

  claim(name: string): string {
    const dot = name.lastIndexOf(".");
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const extension = dot > 0 ? name.slice(dot) : "";
    let candidate = name;
    for (let n = 2; this.#taken.has(candidate.toLowerCase()); n++) candidate = `${stem}_${n}${extension}`;
    this.#taken.add(candidate.toLowerCase());
    return candidate;
  }
}
