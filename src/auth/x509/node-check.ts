/**
 * A node certificate checked against what DataONE expects of one: subject `CN=urn:node:<ID>,DC=dataone,DC=org`
 * (as RFC 4514 and DataONE print it; the node's id when known), a subjectAltName naming the host the others
 * reach it by, both purposes (TLS server: it serves HTTPS; TLS client: it calls other nodes), and in its
 * validity period (soon to end: said too).
 */
import { X509Certificate } from "node:crypto";
import { readCertificate } from "../../certificates/parse.ts";
import { CLIENT_AUTH, SERVER_AUTH } from "./build.ts";

const NODE_SUBJECT = /^CN=(urn:node:\w{2,23}),DC=dataone,DC=org$/;
const REVERSED = /^DC=org,DC=dataone,CN=(urn:node:[^,]+)$/;
const SOON_DAYS = 30;

export interface CertificateCheck {
  subject: string;
  notAfter: Date;
  /** What does not match DataONE's expectations; empty when the certificate is fine. */
  problems: string[];
}

export interface CheckOptions {
  nodeId?: string | undefined;
  /** The host name (or address) in the node's base URL. */
  host?: string | undefined;
  now?: Date | undefined;
}

export function checkNodeCertificate(pem: string, options: CheckOptions = {}): CertificateCheck {
  const cert = new X509Certificate(pem);
  const subject = readCertificate(cert.raw).subject;
  const problems: string[] = [];
  const expected = options.nodeId ? `CN=${options.nodeId},DC=dataone,DC=org` : undefined;
  const reversed = REVERSED.exec(subject);
  if (reversed) {
    problems.push(
      `subject ${subject} is in reverse order (DataONE expects CN=${reversed[1]},DC=dataone,DC=org; openssl's -subj takes "/DC=org/DC=dataone/CN=${reversed[1]}")`,
    );
  } else if (!NODE_SUBJECT.test(subject)) {
    problems.push(`subject ${subject} is not of the form CN=urn:node:<ID>,DC=dataone,DC=org`);
  } else if (expected && subject !== expected) {
    problems.push(`subject ${subject} is not this node's (${expected})`);
  }
  if (!cert.subjectAltName) problems.push("no subjectAltName (the host name other nodes reach it by)");
  else if (options.host && !matchesHost(cert, options.host))
    problems.push(`subjectAltName ${cert.subjectAltName} does not name ${options.host}`);
  const purposes = cert.keyUsage ?? [];
  const missing = [
    ...(purposes.includes(SERVER_AUTH) ? [] : ["serverAuth"]),
    ...(purposes.includes(CLIENT_AUTH) ? [] : ["clientAuth"]),
  ];
  if (missing.length > 0) problems.push(`extended key usage lacks ${missing.join(" and ")}`);
  const now = options.now ?? new Date();
  const notAfter = new Date(cert.validTo);
  const notBefore = new Date(cert.validFrom);
  if (notAfter < now) problems.push(`expired on ${notAfter.toISOString()}`);
  else if (notAfter.getTime() - now.getTime() < SOON_DAYS * 86_400_000)
    problems.push(`expires on ${notAfter.toISOString()}, within ${SOON_DAYS} days`);
  if (notBefore > now) problems.push(`not valid before ${notBefore.toISOString()}`);
  return { subject, notAfter, problems };
}

function matchesHost(cert: X509Certificate, host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return /^[\d.]+$|:/.test(bare) ? cert.checkIP(bare) !== undefined : cert.checkHost(bare) !== undefined;
}

/** The check as one warning line for `serve` and `register`, or undefined when the certificate is fine. */
export function nodeCertificateWarning(file: string, pem: string, options: CheckOptions): string | undefined {
  let check: CertificateCheck;
  try {
    check = checkNodeCertificate(pem, options);
  } catch (error) {
    return `node certificate ${file} cannot be read: ${(error as Error).message}`;
  }
  if (check.problems.length === 0) return undefined;
  return `node certificate ${file} is not what DataONE expects: ${check.problems.join("; ")} (d1node cert check ${file})`;
}
