/**
 * DataONE exceptions as Error subclasses. Services throw them without a detail code; the HTTP error handler
 * fills the detailCode from the catalogue for the API method the route serves (see catalogue.ts).
 */

export const EXCEPTION_STATUS = {
  InvalidRequest: 400,
  InvalidSystemMetadata: 400,
  UnsupportedType: 400,
  UnsupportedMetadataType: 400,
  NotAuthorized: 401,
  InvalidToken: 401,
  InvalidCredentials: 401,
  NotFound: 404,
  IdentifierNotUnique: 409,
  VersionMismatch: 409,
  InsufficientResources: 413,
  SynchronizationFailed: 500,
  ServiceFailure: 500,
  NotImplemented: 501,
} as const;

export type ExceptionName = keyof typeof EXCEPTION_STATUS;

export interface ExceptionDetails {
  /** The identifier the failure is about (sent as the `identifier` attribute / -PID header). */
  pid?: string;
  /** Overrides the catalogue's detail code (used when relaying another node's exception). */
  detailCode?: string;
  traceInformation?: string;
}

export class D1Error extends Error {
  readonly exception: ExceptionName;
  readonly errorCode: number;
  readonly description: string;
  readonly pid: string | undefined;
  readonly detailCode: string | undefined;
  readonly traceInformation: string | undefined;

  constructor(exception: ExceptionName, description: string, details: ExceptionDetails = {}) {
    super(`${exception}: ${description}`);
    this.name = exception;
    this.exception = exception;
    this.errorCode = EXCEPTION_STATUS[exception];
    this.description = description;
    this.pid = details.pid;
    this.detailCode = details.detailCode;
    this.traceInformation = details.traceInformation;
  }
}

const make = (exception: ExceptionName) =>
  class extends D1Error {
    constructor(description: string, details?: ExceptionDetails) {
      super(exception, description, details);
    }
  };

export const InvalidRequest = make("InvalidRequest");
export const InvalidSystemMetadata = make("InvalidSystemMetadata");
export const UnsupportedType = make("UnsupportedType");
export const UnsupportedMetadataType = make("UnsupportedMetadataType");
export const NotAuthorized = make("NotAuthorized");
export const InvalidToken = make("InvalidToken");
export const InvalidCredentials = make("InvalidCredentials");
export const NotFound = make("NotFound");
export const IdentifierNotUnique = make("IdentifierNotUnique");
export const VersionMismatch = make("VersionMismatch");
export const InsufficientResources = make("InsufficientResources");
export const SynchronizationFailed = make("SynchronizationFailed");
export const ServiceFailure = make("ServiceFailure");
export const NotImplemented = make("NotImplemented");

export function isExceptionName(name: string): name is ExceptionName {
  return Object.hasOwn(EXCEPTION_STATUS, name);
}
