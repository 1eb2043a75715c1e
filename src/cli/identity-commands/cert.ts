/**
 * `d1node cert`: node certificates as DataONE expects them (subject `CN=urn:node:<ID>,DC=dataone,DC=org`, the
 * host in subjectAltName, TLS server and client purposes).
 * - `request`: a key and a certificate request (CSR) to send to DataONE's CA;
 * - `ca` and `issue`: a throw-away CA and certificates from it, for a private or test federation;
 * - `check`: a certificate against what DataONE expects (`serve` and `register` run it on --node-cert too).
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  X509Certificate,
} from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { AsnConvert } from "@peculiar/asn1-schema";
import { Certificate } from "@peculiar/asn1-x509";
import type { Command } from "commander";
import {
  type Ava,
  buildCertificate,
  buildCertificateRequest,
  CLIENT_AUTH,
  keyIdOf,
  nameFromSubjectOrder,
  nodeName,
  pemOf,
} from "../../auth/x509/build.ts";
import { checkNodeCertificate } from "../../auth/x509/node-check.ts";
import { OperatorError } from "../operator-error.ts";

const NODE_ID = /^urn:node:\w{2,23}$/;

function newKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync("rsa", { modulusLength: 2048 });
}

/** Writes files, refusing to replace any (a key overwritten by mistake cannot be had back). */
function writeNew(files: Record<string, string>): void {
  for (const file of Object.keys(files)) {
    if (existsSync(file)) throw new OperatorError(`${file} exists: remove it or choose another --out`);
  }
  for (const [file, text] of Object.entries(files))
    writeFileSync(file, text, { mode: file.endsWith(".key") ? 0o600 : 0o644 });
}

const keyPem = (key: KeyObject) => key.export({ type: "pkcs8", format: "pem" }).toString();

function nodeIdOf(value: string): string {
  if (!NODE_ID.test(value))
    throw new OperatorError(`--node-id ${value} must be urn:node: followed by 2-23 letters, digits or _`);
  return value;
}

/** "CN=Jane Admin,O=Example,C=US" in subject order (no escaped commas). */
function avasOf(subject: string): Ava[] {
  return subject.split(",").map((part) => {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new OperatorError(`--subject ${subject}: "${part}" is not TYPE=value`);
    return [part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as const;
  });
}

function days(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new OperatorError(`--days ${value} must be a positive whole number`);
  return n;
}

const hostsOf = (hosts: readonly string[] | undefined) => ({
  dnsNames: (hosts ?? []).filter((h) => !isAddress(h)),
  ipAddresses: (hosts ?? []).filter(isAddress),
});
const isAddress = (host: string) => /^[\d.]+$/.test(host) || host.includes(":");

interface RequestFlags {
  nodeId: string;
  host: string[];
  out?: string;
}
interface CaFlags {
  out: string;
  name: string;
  days: string;
}
interface IssueFlags {
  ca: string;
  caKey: string;
  nodeId?: string;
  subject?: string;
  host?: string[];
  out?: string;
  days: string;
}
interface CheckFlags {
  nodeId?: string;
  host?: string;
}

export function registerCertCommands(program: Command): void {
  const cert = program.command("cert").description("node certificates: request, test CA, issue, check");
  cert
    .command("request")
    .description("a new key and a certificate request (CSR) for DataONE's CA")
    .requiredOption("--node-id <urn>", "the node identifier agreed with DataONE (urn:node:...)")
    .requiredOption("--host <name...>", "host name(s) other nodes reach the node by (subjectAltName)")
    .option("--out <prefix>", "write <prefix>.key and <prefix>.csr (default: the id after urn:node:)")
    .action((flags: RequestFlags) => {
      const nodeId = nodeIdOf(flags.nodeId);
      const out = flags.out ?? nodeId.slice("urn:node:".length);
      const { privateKey, publicKey } = newKey();
      const der = buildCertificateRequest({
        subject: nodeName(nodeId),
        publicKey,
        privateKey,
        ...hostsOf(flags.host),
      });
      writeNew({ [`${out}.key`]: keyPem(privateKey), [`${out}.csr`]: pemOf("CERTIFICATE REQUEST", der) });
      process.stdout.write(
        `wrote ${out}.key and ${out}.csr for CN=${nodeId},DC=dataone,DC=org (${flags.host.join(", ")}): send ${out}.csr to DataONE's CA\n`,
      );
    });
  cert
    .command("ca")
    .description("a throw-away CA for a private or test federation")
    .option("--out <prefix>", "write <prefix>.pem and <prefix>.key", "ca")
    .option("--name <cn>", "the CA's common name", "d1node federation CA")
    .option("--days <n>", "validity in days", "3650")
    .action((flags: CaFlags) => {
      const { privateKey, publicKey } = newKey();
      const name = nameFromSubjectOrder([["CN", flags.name]]);
      const der = buildCertificate({
        subject: name,
        issuer: { name, key: privateKey, keyId: keyIdOf(publicKey) },
        publicKey,
        ca: true,
        notAfter: new Date(Date.now() + days(flags.days) * 86_400_000),
      });
      writeNew({ [`${flags.out}.pem`]: pemOf("CERTIFICATE", der), [`${flags.out}.key`]: keyPem(privateKey) });
      process.stdout.write(`wrote ${flags.out}.pem and ${flags.out}.key: CA CN=${flags.name}\n`);
    });
  cert
    .command("issue")
    .description("a node certificate (or a person's client certificate) from a CA made with `cert ca`")
    .requiredOption("--ca <file>", "the CA certificate (PEM)")
    .requiredOption("--ca-key <file>", "the CA's private key (PEM)")
    .option("--node-id <urn>", "a node certificate: CN=<urn>,DC=dataone,DC=org, TLS server and client")
    .option("--subject <dn>", 'a person\'s client certificate instead, e.g. "CN=Jane Admin,O=Example,C=US"')
    .option("--host <name...>", "host name(s) or addresses the node is reached by (subjectAltName)")
    .option("--out <prefix>", "write <prefix>.pem and <prefix>.key (default: the id after urn:node:)")
    .option("--days <n>", "validity in days", "365")
    .action((flags: IssueFlags) => {
      if (!flags.nodeId === !flags.subject) throw new OperatorError("give either --node-id or --subject");
      if (flags.nodeId && !flags.host?.length)
        throw new OperatorError("a node certificate needs --host: the host name other nodes reach it by");
      const caCert = readFileSync(flags.ca, "utf8");
      const caKey = createPrivateKey(readFileSync(flags.caKey));
      const ca = new X509Certificate(caCert);
      if (!ca.checkPrivateKey(caKey)) throw new OperatorError(`${flags.caKey} is not the key of ${flags.ca}`);
      const issuer = {
        name: AsnConvert.parse(ca.raw, Certificate).tbsCertificate.subject,
        key: caKey,
        keyId: keyIdOf(createPublicKey(caKey)),
      };
      const nodeId = flags.nodeId ? nodeIdOf(flags.nodeId) : undefined;
      const out = flags.out ?? (nodeId ? nodeId.slice("urn:node:".length) : "client");
      const { privateKey, publicKey } = newKey();
      const der = buildCertificate({
        subject: nodeId ? nodeName(nodeId) : nameFromSubjectOrder(avasOf(flags.subject as string)),
        issuer,
        publicKey,
        notAfter: new Date(Date.now() + days(flags.days) * 86_400_000),
        ...(nodeId ? hostsOf(flags.host) : { purposes: [CLIENT_AUTH] }),
      });
      writeNew({ [`${out}.pem`]: pemOf("CERTIFICATE", der), [`${out}.key`]: keyPem(privateKey) });
      const subject = nodeId ? `CN=${nodeId},DC=dataone,DC=org` : flags.subject;
      process.stdout.write(`wrote ${out}.pem and ${out}.key: ${subject}\n`);
    });
  cert
    .command("check <file>")
    .description("check a node certificate against what DataONE expects (exit 1 when it does not)")
    .option("--node-id <urn>", "the node it is for")
    .option("--host <name>", "the host name in the node's base URL")
    .action((file: string, flags: CheckFlags) => {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (error) {
        throw new OperatorError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const check = checkNodeCertificate(text, { nodeId: flags.nodeId, host: flags.host });
      if (check.problems.length === 0) {
        process.stdout.write(
          `${file}: ${check.subject}: as DataONE expects (valid until ${check.notAfter.toISOString()})\n`,
        );
        return;
      }
      for (const problem of check.problems) process.stdout.write(`${file}: ${problem}\n`);
      process.exitCode = 1;
    });
}
