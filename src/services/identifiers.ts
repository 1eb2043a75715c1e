/**
 * "Types.Identifier: Unicode string ... non-empty, without whitespace, and 800 characters long" (API text,
 * Basic types; XSD NonEmptyNoWhitespaceString800). Length counts Unicode characters, not bytes.
 */
import { type D1Error, InvalidRequest } from "../errors/exceptions.ts";

export const MAX_IDENTIFIER_LENGTH = 800;

/** Returns why the string is not a valid identifier, or undefined when it is one. */
export function identifierProblem(value: string): string | undefined {
  if (value === "") return "is empty";
  if (/\s/u.test(value)) return "contains whitespace";
  const length = [...value].length;
  if (length > MAX_IDENTIFIER_LENGTH)
    return `is ${length} characters long (at most ${MAX_IDENTIFIER_LENGTH})`;
  return undefined;
}

type ErrorClass = new (description: string, details?: { pid?: string }) => D1Error;

/** Throws `Exception` (InvalidRequest by default) naming the parameter when the value is no identifier. */
export function requireIdentifier(
  value: string | undefined,
  what: string,
  Exception: ErrorClass = InvalidRequest,
): string {
  if (value === undefined) throw new Exception(`The ${what} is missing.`);
  const problem = identifierProblem(value);
  if (problem)
    throw new Exception(`The ${what} ${problem}; identifiers are 1-800 characters without whitespace.`);
  return value;
}
