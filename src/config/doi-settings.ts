/** The DOI settings (DataCite account, prefix, suffixes, landing page), checked together. */
import type { Config } from "./types.ts";
import { integer, oneOf, optionalText, text } from "./validators.ts";

type DoiSettings = Pick<
  Config,
  | "doiPrefix"
  | "doiShoulder"
  | "doiSuffix"
  | "dataciteUrl"
  | "dataciteRepository"
  | "datacitePasswordFile"
  | "doiLandingPage"
  | "dataciteTimeout"
>;

/** "The DOI prefix is always 10. followed by a number of at least four digits" (DOI Handbook 2.2.2). */
const PREFIX = /^10\.\d{4,9}$/;

export function doiSettings(c: Config): DoiSettings {
  const settings: DoiSettings = {
    doiPrefix: optionalText("doiPrefix", c.doiPrefix)?.replace(/^doi:/i, ""),
    doiShoulder:
      typeof c.doiShoulder === "string" ? c.doiShoulder.trim() : text("doiShoulder", c.doiShoulder),
    doiSuffix: oneOf("doiSuffix", c.doiSuffix, ["random", "uuid"]),
    dataciteUrl: text("dataciteUrl", c.dataciteUrl).replace(/\/+$/, ""),
    dataciteRepository: optionalText("dataciteRepository", c.dataciteRepository),
    datacitePasswordFile: optionalText("datacitePasswordFile", c.datacitePasswordFile),
    doiLandingPage: optionalText("doiLandingPage", c.doiLandingPage),
    dataciteTimeout: integer("dataciteTimeout", c.dataciteTimeout, 1, 600),
  };
  if (settings.doiPrefix === undefined) return settings;
  if (!PREFIX.test(settings.doiPrefix)) {
    throw new Error(
      'setting "doiPrefix" must be a DOI prefix such as 10.5072 (10. and at least four digits)',
    );
  }
  if (!/^[A-Za-z0-9._-]*$/.test(settings.doiShoulder)) {
    throw new Error('setting "doiShoulder" may hold only letters, digits, ".", "_" and "-"');
  }
  if (!/^https?:\/\/[^/]/.test(settings.dataciteUrl)) {
    throw new Error('setting "dataciteUrl" must be an http(s) URL such as https://api.test.datacite.org');
  }
  if (settings.dataciteRepository === undefined) {
    throw new Error('setting "doiPrefix" needs "dataciteRepository", the DataCite repository account ID');
  }
  if (settings.doiLandingPage !== undefined && !/^https?:\/\/\S*\{pid\}/.test(settings.doiLandingPage)) {
    throw new Error('setting "doiLandingPage" must be an http(s) URL with {pid} where the identifier goes');
  }
  return settings;
}
