/**
 * Statement texts that PostgreSQL connections prepare once and run by name afterwards (pg's named queries): the
 * server then skips parsing and planning them on every call. Kept for the few reads run once per request on the
 * hottest paths (an MN's getSystemMetadata during a harvest); postgres-pool.ts looks texts up here.
 */
const names = new Map<string, string>();

/** Marks `text` (PostgreSQL placeholders) as prepared per connection; returns its statement name. */
export function prepareByName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `d1_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/** The statement name of `text`, when it was marked. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}
