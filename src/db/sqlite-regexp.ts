/**
 * The JavaScript side of SQLite's `d1_regexp(value, source)` (sqlite-handle.ts), SQLite having no REGEXP of its
 * own: `source` compiled with flags "su" (as the search engine writes its regular expressions for both
 * databases), once per source.
 */
const compiled = new Map<string, RegExp>();

export function compiledRegexp(source: string): RegExp {
  let re = compiled.get(source);
  if (!re) {
    re = new RegExp(source, "su");
    if (compiled.size >= 256) compiled.clear();
    compiled.set(source, re);
  }
  return re;
}
