/**
 * Which object formats are OAI-ORE resource maps. DataONE's format list gives the RESOURCE type to formats that
 * are not maps at all (`http://docs.annotatorjs.org/en/v1.2.x/annotation-format.html`, AnnotatorJS's JSON
 * annotations), so a RESOURCE format type alone does not make an object a map: only these format ids are read as
 * RDF/XML resource maps (the ids DataONE's clients use: d1_common's ORE_FORMAT_ID, MetacatUI's RM_FORMAT_ID).
 */
export const RESOURCE_MAP_FORMATS: ReadonlySet<string> = new Set(["http://www.openarchives.org/ore/terms"]);

export function isResourceMapFormat(formatId: string): boolean {
  return RESOURCE_MAP_FORMATS.has(formatId);
}
