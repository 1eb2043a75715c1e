/** The object format registry as every layer reads it (loaded by `src/context/formats.ts`). */
import type { ObjectFormat } from "./xml-documents/format-xml.ts";

export interface FormatRegistry {
  get(formatId: string): ObjectFormat | undefined;
  all(): readonly ObjectFormat[];
}
