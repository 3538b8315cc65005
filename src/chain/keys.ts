// The custodial key tree: MASTER_MNEMONIC, or one generated at first start and kept in a 0600 file
// beside the database. BIP-44 m/44'/60'/0'/0/i: index 0 is the treasury, agents get 1 upward. The
// internal settlement signer is m/44'/60'/1'/0/0 (another account, which no agent or the treasury
// uses): it signs the x402 authorizations /x402/pay hands to a payee that is an agentbank deposit
// address, holds no USDC, and so cannot move the treasury's on chain (docs/chain.md, "Custody").
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { pbkdf2Sync } from "node:crypto";
// The BIP-39 library viem itself uses: word list and checksum.
import { validateMnemonic } from "@scure/bip39";
import { dirname, join } from "node:path";
import { toHex, type Address } from "viem";
import { english, generateMnemonic, HDKey, privateKeyToAccount, privateKeyToAddress, type PrivateKeyAccount } from "viem/accounts";
import { logLine } from "../log";

/** A start-up failure of the chain side: main.ts prints its message on one line and exits. */
export class ChainStartError extends Error {}

let branch: HDKey | null = null;
let internalSigner: PrivateKeyAccount | null = null;

function loadMnemonic(configured: string | undefined, databasePath: string | null, hasAddresses: boolean): string {
  if (configured) return configured;
  // Instances sharing PostgreSQL must all derive the same keys: the phrase cannot live beside one of them.
  if (databasePath === null) throw new ChainStartError("with DATABASE_URL, set MASTER_MNEMONIC: every instance must derive the same treasury and deposit addresses");
  if (databasePath === ":memory:") return generateMnemonic(english);
  const file = join(dirname(databasePath), "agentbank.mnemonic");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  // A new mnemonic would silently orphan every address already handed out.
  if (hasAddresses) throw new ChainStartError(`the database has deposit addresses but neither MASTER_MNEMONIC nor ${file} is there: restore the mnemonic`);
  const mnemonic = generateMnemonic(english);
  writeFileSync(file, `${mnemonic}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  logLine({ level: "warn", msg: `generated a new master mnemonic in ${file}; every deposit address and the treasury derive from it: back it up`, file });
  return mnemonic;
}

/** Loads the key tree; `stored` is an address the database already holds, checked against it. */
export function initKeys(configured: string | undefined, databasePath: string | null, stored: { index: number; address: string } | null): void {
  const mnemonic = loadMnemonic(configured, databasePath, stored !== null);
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
