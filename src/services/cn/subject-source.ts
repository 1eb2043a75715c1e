/** On the CN itself, sessions are expanded from its own identity tables (no HTTP lookup). */
import type { SubjectInfoSource } from "../../auth/cn-identity.ts";
import type { NodeContext } from "../../context/node-context.ts";
import { NotFound } from "../../errors/exceptions.ts";
import { getSubjectInfo } from "./identity.ts";

export function localSubjectInfoSource(ctx: NodeContext): SubjectInfoSource {
  return {
    async lookup(subject) {
      try {
        return await getSubjectInfo(ctx, subject);
      } catch (error) {
        if (error instanceof NotFound) return undefined;
        throw error;
      }
    },
  };
}
