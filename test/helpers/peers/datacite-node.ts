/** A node connected to the DataCite fake, and what the DOI tests create on it. */
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Caller, call, form, okXml } from "../clients/client.ts";
import type { DataciteFake } from "./datacite-fake.ts";

export const EML = "eml://ecoinformatics.org/eml-2.1.1";

export function emlDocument(title: string): Buffer {
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>
<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="draft.1" system="test"><dataset>
<title>${title}</title><creator><individualName><givenName>Ada</givenName><surName>Limnos</surName></individualName>
<userId directory="https://orcid.org">0000-0002-1825-0097</userId></creator>
<pubDate>2025-02-01</pubDate><abstract><para>Lake temperatures.</para></abstract>
<contact><organizationName>Field Station</organizationName></contact></dataset></eml:eml>`,
  );
}

/** The node settings that connect it to the fake. */
export async function dataciteSettings(fake: DataciteFake): Promise<Record<string, unknown>> {
  const folder = await mkdtemp(path.join(tmpdir(), "d1node-datacite-"));
  const passwordFile = path.join(folder, "password");
  await writeFile(passwordFile, `${fake.password}\n`);
  return {
    doiPrefix: fake.prefix,
    dataciteUrl: fake.url,
    dataciteRepository: fake.repository,
    datacitePasswordFile: passwordFile,
    dataciteTimeout: 2,
  };
}

export async function generateDoi(c: Caller): Promise<string> {
  const xml = await okXml(await call(c, "POST", "/generate", { body: form({ scheme: "DOI" }) }));
  const doi = /<(?:\w+:)?identifier[^>]*>([^<]+)</.exec(xml)?.[1];
  assert.ok(doi, xml);
  return doi;
}
