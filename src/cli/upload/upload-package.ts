/**
 * `d1node upload --package FOLDER`: a data package in the order the node's package rule asks for
 * (docs/deployment.md, "Data packages"): every file of the folder with its system metadata beside it in
 * `<file>.sysmeta.xml`, or, for a file without one, system metadata computed from the flags (its format from its
 * name and first bytes); all checked before the first byte is sent; the data and metadata objects first, the
 * resource maps (formatId http://www.openarchives.org/ore/terms) last, so a failure part-way never leaves a map
 * pointing at nothing. Each identifier on standard output as it is created; on a failure, one line saying which
 * file failed, which were created and which were not sent.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { RESOURCE_MAP_FORMATS } from "../../search/index.ts";
import { OperatorError } from "../operator-error.ts";
import { connectionOf, type Plan, planUpload, type UploadFlags, uploadPlanned } from "./upload.ts";

const SYSMETA_SUFFIX = ".sysmeta.xml";

export async function uploadPackage(folder: string, flags: UploadFlags): Promise<void> {
  const plans = await planPackage(folder, flags);
  if (flags.dryRun) {
    for (const plan of plans) {
      process.stdout.write(`${plan.pid}\t${plan.sysmeta.formatId}\t${path.basename(plan.file)}\n`);
    }
    return;
  }
  const created: string[] = [];
  for (const [i, plan] of plans.entries()) {
    try {
      created.push(await uploadPlanned(plan));
    } catch (error) {
      const notSent = plans.slice(i + 1).map((p) => path.basename(p.file));
      throw new OperatorError(
        `${path.basename(plan.file)}: ${(error as Error).message}; created: ${created.join(", ") || "none"}; ` +
          `not sent: ${notSent.join(", ") || "none"}`,
      );
    }
    process.stdout.write(`${created.at(-1)}\n`);
  }
}

/** The folder's uploads, each checked against (or given) its system metadata: resource maps last, else by name. */
async function planPackage(folder: string, flags: UploadFlags): Promise<Plan[]> {
  let names: string[];
  try {
    names = readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw new OperatorError(`cannot read the folder ${folder}: ${(error as Error).message}`);
  }
  const files = names.filter((name) => !name.endsWith(SYSMETA_SUFFIX));
  if (files.length === 0) throw new OperatorError(`${folder} holds no file to upload`);
  const connection = connectionOf(flags);
  const plans: Plan[] = [];
  for (const name of files) {
    const sysmeta = `${name}${SYSMETA_SUFFIX}`;
    const given = names.includes(sysmeta) ? path.join(folder, sysmeta) : undefined;
    // Flags compute the system metadata of the files that have none beside them.
    plans.push(await planUpload(path.join(folder, name), given, connection, given ? {} : flags));
  }
  const isMap = (plan: Plan) => RESOURCE_MAP_FORMATS.has(plan.sysmeta.formatId);
  return [...plans.filter((p) => !isMap(p)), ...plans.filter(isMap)];
}
