/** Checks of single setting values: each returns the value in its typed form or throws an Error naming the setting. */

export function optionalText(name: string, value: unknown): string | undefined {
  return value === undefined || value === "" ? undefined : text(name, value);
}

/** An e-mail address as OAI-PMH's emailType has it ("\S+@(\S+\.)+\S+"), or undefined when unset. */
export function email(name: string, value: unknown): string | undefined {
  const address = optionalText(name, value);
  if (address !== undefined && !/^\S+@(\S+\.)+\S+$/.test(address))
    throw new Error(`setting "${name}" must be an e-mail address (name@host.domain)`);
  return address;
}

export function headerName(name: string, value: unknown): string {
  const header = text(name, value);
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header))
    throw new Error(`setting "${name}" must be an HTTP header name`);
  return header.toLowerCase();
}

export function normaliseBasePath(value: string): string {
  const trimmed = value.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
}

export function text(name: string, value: unknown): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new Error(`setting "${name}" must be a non-empty string`);
  return value.trim();
}

export function integer(name: string, value: unknown, min: number, max: number): number {
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new Error(`setting "${name}" must be an integer from ${min} to ${max}`);
  }
  return n;
}

export function optionalInteger(name: string, value: unknown): number | undefined {
  return value === undefined || value === "" ? undefined : integer(name, value, 0, Number.MAX_SAFE_INTEGER);
}

/** true/false, also as the strings the environment gives. */
export function boolean(name: string, value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "false") return value === "true";
  throw new Error(`setting "${name}" must be true or false`);
}

export function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`setting "${name}" must be one of ${allowed.join(", ")}`);
}

/** A list from a JSON array or from a string separated by ";" (subjects contain commas). */
export function list(name: string, value: unknown): string[] {
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value;
  if (typeof value === "string") {
    return value
      .split(";")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }
  throw new Error(`setting "${name}" must be a list of strings (JSON array, or ";"-separated)`);
}
