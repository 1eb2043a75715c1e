/**
 * The OAI-PMH error conditions (OAI-PMH 2.0, section 3.6): answered inside a 200 OAI-PMH response as
 * `<error code="...">`, never as an HTTP or DataONE error.
 */
export type OaiErrorCode =
  | "badArgument"
  | "badResumptionToken"
  | "badVerb"
  | "cannotDisseminateFormat"
  | "idDoesNotExist"
  | "noRecordsMatch"
  | "noMetadataFormats"
  | "noSetHierarchy";

export class OaiError extends Error {
  constructor(
    readonly code: OaiErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "OaiError";
  }
}

/**
 * "In cases where the request that generated this response resulted in a badVerb or badArgument error
 * condition, the repository must return the base URL of the protocol request only" (section 3.2).
 */
export function echoesArguments(error: OaiError): boolean {
  return error.code !== "badVerb" && error.code !== "badArgument";
}
