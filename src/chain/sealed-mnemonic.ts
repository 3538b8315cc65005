// The master mnemonic at rest, encrypted (docs/security.md, "Keys at rest"). `agentbank keys encrypt`
// writes agentbank.mnemonic.enc beside the database, one JSON object (bytes in base64, `ct` ending with
// GCM's 16-byte tag):
//   {"v":1,"kdf":"scrypt","N":131072,"r":8,"p":1,"salt":…,"cipher":"aes-256-gcm","nonce":…,"ct":…}
// scrypt turns the operator's passphrase and a fresh random salt into a 256-bit key; AES-256-GCM
// encrypts the phrase with it and authenticates the header too. Both are node:crypto's (BoringSSL in
// Bun): nothing to add or keep up to date. Every sealing draws a new salt, hence a new key, so GCM's
// random 96-bit nonce is never used twice under one key.
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { withoutLineEnd } from "../config";

/** The files beside the database (DATABASE_PATH's folder). */
export const PLAIN_FILE = "agentbank.mnemonic";
export const SEALED_FILE = "agentbank.mnemonic.enc";
/** systemd's credential name: LoadCredentialEncrypted=master-mnemonic-passphrase:/etc/agentbank/passphrase.cred */
export const PASSPHRASE_CREDENTIAL = "master-mnemonic-passphrase";
/** N = 2^17 (128 MiB, about 0.4 s per unlock on the 2-core test VM): what every guess at the passphrase costs. */
const COST = { N: 2 ** 17, r: 8, p: 1 };
/** A file may ask for more work than COST (up to 1 GiB of memory), never less. */
const MAX_N = 2 ** 20;
export const MIN_PASSPHRASE_LENGTH = 12;

/** An encrypted mnemonic that cannot be opened: no passphrase, the wrong one, or not such a file. */
export class SealError extends Error {}

export type Passphrase = { value: string; from: string };
type Header = { v: 1; kdf: "scrypt"; N: number; r: number; p: number; salt: string; cipher: "aes-256-gcm" };
type Sealed = Header & { nonce: Buffer; ct: Buffer };

const TAG_BYTES = 16;

function keyOf(passphrase: string, header: Header): Buffer {
  const { N, r, p } = header;
  return scryptSync(passphrase.normalize("NFC"), Buffer.from(header.salt, "base64"), 32, { N, r, p, maxmem: 256 * N * r });
}

/** The header as authenticated data: its fields in one fixed order. */
const headerBytes = (header: Header) => Buffer.from(JSON.stringify([header.v, header.kdf, header.N, header.r, header.p, header.salt, header.cipher]));

/** The file's text for `mnemonic` under `passphrase`. */
export function seal(mnemonic: string, passphrase: string): string {
  const header: Header = { v: 1, kdf: "scrypt", ...COST, salt: randomBytes(16).toString("base64"), cipher: "aes-256-gcm" };
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(passphrase, header), nonce).setAAD(headerBytes(header));
  const ct = Buffer.concat([cipher.update(mnemonic, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${JSON.stringify({ ...header, nonce: nonce.toString("base64"), ct: ct.toString("base64") })}\n`;
}

/** Base64 text of `bytes` bytes (at least `bytes` when `atLeast`), as a Buffer; null when it is not. */
function base64(value: unknown, bytes: number, atLeast = false): Buffer | null {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  const buffer = Buffer.from(value, "base64");
  return (atLeast ? buffer.length >= bytes : buffer.length === bytes) ? buffer : null;
}

function parse(text: string, file: string): Sealed {
  let fields: Record<string, unknown> = {};
  try {
    fields = JSON.parse(text);
  } catch {}
  const N = fields?.N;
  const [salt, nonce, ct] = [base64(fields?.salt, 16), base64(fields?.nonce, 12), base64(fields?.ct, TAG_BYTES + 1, true)];
  const known = fields?.v === 1 && fields.kdf === "scrypt" && fields.r === COST.r && fields.p === COST.p && fields.cipher === "aes-256-gcm";
  if (!known || typeof N !== "number" || !Number.isInteger(Math.log2(N)) || N < COST.N || N > MAX_N || !salt || !nonce || !ct) {
    throw new SealError(`${file} is not an encrypted mnemonic agentbank reads ({"v":1,"kdf":"scrypt","N":2^17…2^20,"r":8,"p":1,"salt","cipher":"aes-256-gcm","nonce","ct"})`);
  }
  return { v: 1, kdf: "scrypt", N, r: COST.r, p: COST.p, salt: fields.salt as string, cipher: "aes-256-gcm", nonce, ct };
}

/** The phrase the text of `file` holds, opened with `passphrase`. */
export function unseal(text: string, passphrase: Passphrase, file: string): string {
  const sealed = parse(text, file);
  const decipher = createDecipheriv("aes-256-gcm", keyOf(passphrase.value, sealed), sealed.nonce).setAAD(headerBytes(sealed));
  decipher.setAuthTag(sealed.ct.subarray(-TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.ct.subarray(0, -TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new SealError(`${file}: the passphrase from ${passphrase.from} does not open it (a wrong passphrase, or the file was changed)`);
  }
}

/** The passphrase: MASTER_MNEMONIC_PASSPHRASE as configured, else systemd's credential; null when neither is there. */
export function mnemonicPassphrase(configured: string | undefined): Passphrase | null {
  if (configured) return { value: configured, from: "MASTER_MNEMONIC_PASSPHRASE" };
  const folder = process.env.CREDENTIALS_DIRECTORY;
  const file = folder ? join(folder, PASSPHRASE_CREDENTIAL) : null;
  if (!file || !existsSync(file)) return null;
  const value = withoutLineEnd(readFileSync(file, "utf8"));
  return value ? { value, from: `the credential ${file}` } : null;
}

/** The phrase in the encrypted `file`, opened with the passphrase the service is given. */
export function openSealedFile(file: string, configured: string | undefined): string {
  const passphrase = mnemonicPassphrase(configured);
  if (!passphrase) {
    throw new SealError(
      `the master mnemonic in ${file} is encrypted and no passphrase was given: set MASTER_MNEMONIC_PASSPHRASE, or the systemd credential ${PASSPHRASE_CREDENTIAL} (LoadCredentialEncrypted=, docs/deploy.md)`,
    );
  }
  return unseal(readFileSync(file, "utf8"), passphrase, file);
}
