/**
 * MNPackage route: GET /packages/{packageType}/{pid}. The package type is a format identifier with a "/"
 * ("application/bagit-097"): clients send it percent-encoded as one segment (the DataONE Python client does);
 * the unencoded form "application/bagit-097/{pid}" is accepted too. If-None-Match / If-Modified-Since with the
 * package's current validators answer 304 (after the same access checks), with no bag made and no read logged.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidRequest } from "../../../errors/exceptions.ts";
import type { PackageValidators } from "../../../packages/validators.ts";
import { getPackage } from "../../../services/mn/package.ts";
import { callInfo } from "../../call.ts";
import { answerRead, type Validators } from "../../conditional-read.ts";
import { httpDate } from "../../headers.ts";
import { refuseImpossibleIdentifier } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

export function registerPackageRoutes(app: FastifyInstance, scope: RouteScope): void {
  const { ctx, version, prefix } = scope;
  const packagesPrefix = `${prefix}/packages/`;

  app.get(`${packagesPrefix}*`, { config: { apiMethod: "MNPackage.getPackage" } }, async (request, reply) => {
    const { packageType, pid } = packagePath(request, packagesPrefix);
    const bag = await getPackage(
      ctx,
      callInfo(request),
      packageType,
      pid,
      version,
      (validators) => answerRead(request.headers, httpValidators(validators), 0, false).status !== 304,
    );
    const { etag, lastModified } = httpValidators(bag.validators);
    const validators = { etag, "last-modified": lastModified };
    // "The server generating a 304 response MUST generate ... ETag ... that would have been sent in a 200".
    if (!bag.body) return reply.code(304).headers(validators).send();
    return reply
      .code(200)
      .headers(validators)
      .type("application/zip")
      .header("Content-Disposition", attachment(bag.fileName))
      .header("X-DataONE-Package-Type", bag.type)
      .send(bag.body);
  });
}

/** A bag is made anew for each request: its validators are those of its content (weak ETag, Last-Modified). */
function httpValidators(validators: PackageValidators): Validators & { etag: string; lastModified: string } {
  return { etag: validators.etag, lastModified: httpDate(validators.lastModified) };
}

function packagePath(request: FastifyRequest, prefix: string): { packageType: string; pid: string } {
  const raw = (request.raw.url ?? "").split("?")[0] ?? "";
  const rest = raw.startsWith(prefix) ? raw.slice(prefix.length) : "";
  const segments = rest.split("/");
  let packageType = decode(segments.shift() ?? "");
  if (!packageType.includes("/") && segments.length > 1) packageType += `/${decode(segments.shift() ?? "")}`;
  const pid = decode(segments.join("/"));
  refuseImpossibleIdentifier(pid);
  if (packageType === "" || pid === "") {
    throw new InvalidRequest(
      "The path must be /packages/{packageType}/{pid}, e.g. /packages/application%2Fbagit-097/{pid}.",
    );
  }
  return { packageType, pid };
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidRequest(`The URL path is not valid percent-encoded UTF-8: "${segment}".`);
  }
}

/** RFC 6266: an ASCII fallback and the UTF-8 name. */
function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^ -~]|["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
