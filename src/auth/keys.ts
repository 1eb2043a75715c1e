/**
 * The node's own token-signing key pair, kept in the data folder so that `d1node token` and a node started on
 * the same folder agree. Created on first use with owner-only permissions.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  X509Certificate,
} from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function signingKeyPath(dataDir: string): string {
  return path.join(dataDir, "keys", "token-signing-key.pem");
}

export function loadOrCreateSigningKey(dataDir: string): SigningKey {
  const file = signingKeyPath(dataDir);
  if (!keyFileExists(file, dataDir)) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    renameSync(temp, file);
  }
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (error) {
    throw unreadable(error, file, dataDir);
  }
  const privateKey = createPrivateKey(pem);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** The data folder's signing key, when it has one (commands beside a node must not make a new one). */
export function loadSigningKey(dataDir: string): SigningKey | undefined {
  const file = signingKeyPath(dataDir);
  if (!keyFileExists(file, dataDir)) return undefined;
  const privateKey = createPrivateKey(readFileSync(file));
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/**
 * Whether the key file is there. Only a key that is truly absent is created: one this user may not see (another
 * user's data folder, mode 0700) is said so, instead of trying to make a second key beside the node's.
 */
function keyFileExists(file: string, dataDir: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw unreadable(error, file, dataDir);
  }
}

function unreadable(error: unknown, file: string, dataDir: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "EACCES" && code !== "EPERM") return error as Error;
  return Object.assign(
    new Error(
      `cannot read the node's signing key ${file}: permission denied; run this as the user the node runs as ` +
        `(the owner of ${dataDir})`,
    ),
    { code: "D1NODE_KEY_UNREADABLE" },
  );
}

/** Public keys from PEM files holding public keys or X.509 certificates (several per file allowed). */
export function loadPublicKeys(files: readonly string[]): KeyObject[] {
  const keys: KeyObject[] = [];
  for (const file of files) {
    const pem = readFileSync(file, "utf8");
    const blocks = pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
    if (blocks.length === 0) throw new Error(`${file}: no PEM block found`);
    for (const block of blocks) {
      if (block.includes("CERTIFICATE")) keys.push(new X509Certificate(block).publicKey);
      else if (block.includes("PUBLIC KEY")) keys.push(createPublicKey(block));
      else throw new Error(`${file}: expected public keys or certificates, found another PEM block`);
    }
  }
  return keys;
}
