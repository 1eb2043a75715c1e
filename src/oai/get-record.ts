/** GetRecord (section 4.1): one record in one format; a deleted record is its header alone. */
import type { NodeContext } from "../context/node-context.ts";
import { OaiError } from "./errors.ts";
import { metadataFormat } from "./formats.ts";
import { recordsXml } from "./records.ts";
import type { OaiArguments } from "./request.ts";

export async function getRecord(ctx: NodeContext, args: OaiArguments): Promise<string> {
  const identifier = args.identifier as string;
  const prefix = args.metadataPrefix as string;
  const record = await ctx.db.oai.get(identifier);
  if (!record) throw new OaiError("idDoesNotExist", `This repository has no item "${identifier}".`);
  const format = metadataFormat(ctx.formats, prefix);
  const cannot = () =>
    new OaiError("cannotDisseminateFormat", `The item "${identifier}" is not available as "${prefix}".`);
  if (!format?.accepts(record.formatId, record.pid)) throw cannot();
  const [xml] = await recordsXml(ctx, [record], format);
  if (xml === undefined) throw cannot();
  return `<GetRecord>${xml}</GetRecord>`;
}
