/**
 * The arguments of an OAI-PMH request (section 3.1): from the query string of a GET or the
 * application/x-www-form-urlencoded body of a POST. Checked here: the verb (badVerb), arguments repeated,
 * unknown to the verb or missing (badArgument), and resumptionToken as an exclusive argument.
 */
import { OaiError } from "./errors.ts";

export const VERBS = [
  "Identify",
  "ListMetadataFormats",
  "ListSets",
  "ListIdentifiers",
  "ListRecords",
  "GetRecord",
] as const;
export type Verb = (typeof VERBS)[number];

export type OaiArguments = Partial<
  Record<"identifier" | "metadataPrefix" | "from" | "until" | "set" | "resumptionToken", string>
>;

export interface OaiRequest {
  verb: Verb;
  args: OaiArguments;
}

const ALLOWED: Record<Verb, { required: string[]; optional: string[]; exclusive?: string }> = {
  Identify: { required: [], optional: [] },
  ListMetadataFormats: { required: [], optional: ["identifier"] },
  ListSets: { required: [], optional: [], exclusive: "resumptionToken" },
  ListIdentifiers: {
    required: ["metadataPrefix"],
    optional: ["from", "until", "set"],
    exclusive: "resumptionToken",
  },
  ListRecords: {
    required: ["metadataPrefix"],
    optional: ["from", "until", "set"],
    exclusive: "resumptionToken",
  },
  GetRecord: { required: ["identifier", "metadataPrefix"], optional: [] },
};

const PREFIX = /^[A-Za-z0-9\-_.!~*'()]+$/;

/** The request's verb and arguments, or the OaiError it earns. */
export function parseOaiRequest(params: URLSearchParams): OaiRequest {
  const verbs = params.getAll("verb");
  if (verbs.length === 0) throw new OaiError("badVerb", "The request has no verb argument.");
  if (verbs.length > 1) throw new OaiError("badVerb", "The verb argument is repeated.");
  const verb = VERBS.find((known) => known === verbs[0]);
  if (!verb) throw new OaiError("badVerb", `"${verbs[0]}" is not an OAI-PMH verb (${VERBS.join(", ")}).`);
  const rule = ALLOWED[verb];
  const args: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name === "verb") continue;
    if (name in args) throw new OaiError("badArgument", `The argument ${name} is repeated.`);
    if (!rule.required.includes(name) && !rule.optional.includes(name) && rule.exclusive !== name) {
      throw new OaiError("badArgument", `${verb} takes no argument ${name}.`);
    }
    args[name] = value;
  }
  if (rule.exclusive !== undefined && rule.exclusive in args) {
    const others = Object.keys(args).filter((name) => name !== rule.exclusive);
    if (others.length > 0) {
      throw new OaiError(
        "badArgument",
        `resumptionToken is an exclusive argument: leave out ${others.join(", ")}.`,
      );
    }
  } else {
    const missing = rule.required.filter((name) => !(name in args));
    if (missing.length > 0)
      throw new OaiError("badArgument", `${verb} needs the argument ${missing.join(" and ")}.`);
  }
  const prefix = args.metadataPrefix;
  if (prefix !== undefined && !PREFIX.test(prefix)) {
    throw new OaiError("badArgument", `"${prefix}" is not a metadataPrefix.`);
  }
  return { verb, args };
}
