// The custodial key tree: MASTER_MNEMONIC, or the phrase kept beside the database — encrypted in
// agentbank.mnemonic.enc (`agentbank keys encrypt`, sealed-mnemonic.ts), or plain in the 0600 file
// agentbank.mnemonic, which the first start generates. BIP-44 m/44'/60'/0'/0/i: index 0 is the
// treasury, agents get 1 upward. The internal settlement signer is m/44'/60'/1'/0/0 (another account,
// which no agent or the treasury uses): it signs the x402 authorizations /x402/pay hands to a payee that
// is an agentbank deposit address, holds no USDC, and so cannot move the treasury's on chain
// (docs/chain.md, "Custody").
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { pbkdf2Sync } from "node:crypto";
// The BIP-39 library viem itself uses: word list and checksum.
import { validateMnemonic } from "@scure/bip39";
import { join } from "node:path";
import { toHex, type Address } from "viem";
import { english, generateMnemonic, HDKey, privateKeyToAccount, privateKeyToAddress, type PrivateKeyAccount } from "viem/accounts";
import { logLine } from "../log";
import { openSealedFile, PLAIN_FILE, SEALED_FILE, SealError } from "./sealed-mnemonic";

/** A start-up failure of the chain side: main.ts prints its message on one line and exits. */
export class ChainStartError extends Error {}

let branch: HDKey | null = null;
let internalSigner: PrivateKeyAccount | null = null;
/** What the service says at start about where the phrase is kept, when it is kept in plain text. */
let plainTextWarning: string | null = null;

/**
 * Where the phrase is: MASTER_MNEMONIC, else the files in `folder` (null: a database in memory, whose
 * phrase is too). `shared`: instances share the database (PostgreSQL) and must all derive the same keys,
 * so none may generate a phrase of its own.
 */
export type KeySource = { mnemonic?: string; passphrase?: string; folder: string | null; shared: boolean };

function loadMnemonic(source: KeySource, hasAddresses: boolean): string {
  const encrypt = "encrypt it with `agentbank keys encrypt` (docs/deploy.md, \"Encrypt the mnemonic\")";
  if (source.mnemonic) {
    plainTextWarning = `MASTER_MNEMONIC holds the master mnemonic in plain text (in the environment and the file that sets it): ${encrypt}, then remove MASTER_MNEMONIC`;
    return source.mnemonic;
  }
  if (source.folder === null) return generateMnemonic(english);
  const [sealedFile, plainFile] = [join(source.folder, SEALED_FILE), join(source.folder, PLAIN_FILE)];
  if (existsSync(sealedFile)) {
    if (existsSync(plainFile)) plainTextWarning = `${plainFile} is still there beside ${sealedFile}: run \`agentbank keys encrypt\` again to remove it`;
    try {
      return openSealedFile(sealedFile, source.passphrase);
    } catch (error) {
      if (error instanceof SealError) throw new ChainStartError(error.message);
      throw error;
    }
  }
  if (source.shared) {
    throw new ChainStartError(`with DATABASE_URL, set MASTER_MNEMONIC or put ${SEALED_FILE} (agentbank keys encrypt) in ${source.folder}: every instance must derive the same treasury and deposit addresses`);
  }
  if (existsSync(plainFile)) {
    plainTextWarning = `the master mnemonic is unencrypted in ${plainFile}: a copy of the disk holds the treasury and every deposit address; ${encrypt}`;
    return readFileSync(plainFile, "utf8").trim();
  }
  // A new mnemonic would silently orphan every address already handed out.
  if (hasAddresses) throw new ChainStartError(`the database has deposit addresses but neither MASTER_MNEMONIC nor ${sealedFile} nor ${plainFile} is there: restore the mnemonic`);
  const mnemonic = generateMnemonic(english);
  writeFileSync(plainFile, `${mnemonic}\n`, { mode: 0o600 });
  chmodSync(plainFile, 0o600);
  logLine({ level: "warn", msg: `generated a new master mnemonic in ${plainFile}; every deposit address and the treasury derive from it: back it up, then ${encrypt}` });
  return mnemonic;
}

/** The start-up warning about a phrase kept in plain text (serve logs it); null when it is encrypted or in memory. */
export const keysAtRestWarning = (): string | null => plainTextWarning;

/** Loads the key tree; `stored` is an address the database already holds, checked against it. */
export function initKeys(source: KeySource, stored: { index: number; address: string } | null): void {
  const mnemonic = loadMnemonic(source, stored !== null);
  if (!validateMnemonic(mnemonic, english)) throw new ChainStartError("MASTER_MNEMONIC: not a valid BIP-39 phrase (unknown word or wrong checksum)");
  // BIP-39 seed (PBKDF2-SHA512, 2048 rounds) once; each address is then one child derivation.
  const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
  const root = HDKey.fromMasterSeed(seed);
  branch = root.derive("m/44'/60'/0'/0");
  internalSigner = privateKeyToAccount(toHex(root.derive("m/44'/60'/1'/0/0").privateKey!));
  if (stored && addressAt(stored.index) !== stored.address) {
    throw new ChainStartError(`the master mnemonic does not derive the deposit addresses in the database (index ${stored.index} is ${stored.address}): it was changed`);
  }
}

function key(index: number): `0x${string}` {
  if (!branch) throw new Error("chain keys not initialised");
  return toHex(branch.deriveChild(index).privateKey!);
}

export const addressAt = (index: number): Address => privateKeyToAddress(key(index));
export const treasuryAccount = (): PrivateKeyAccount => privateKeyToAccount(key(0));

export function internalSignerAccount(): PrivateKeyAccount {
  if (!internalSigner) throw new Error("chain keys not initialised");
  return internalSigner;
}

export type ServiceSigners = { treasury: Address; internalSigner: Address };
export const serviceSigners = (): ServiceSigners => ({ treasury: treasuryAccount().address, internalSigner: internalSignerAccount().address });

/** Which of the service's own signing addresses `address` (checksummed) is, if any: never a payee or a destination. */
export function serviceSignerAt(address: string): "treasury" | "internal settlement signer" | null {
  const { treasury, internalSigner } = serviceSigners();
  if (address === treasury) return "treasury";
  if (address === internalSigner) return "internal settlement signer";
  return null;
}
