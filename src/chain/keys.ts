// The custodial key tree: MASTER_MNEMONIC, or one generated at first start and kept in a 0600 file
// beside the database. BIP-44 m/44'/60'/0'/0/i: index 0 is the treasury, agents get 1 upward.
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { pbkdf2Sync } from "node:crypto";
import { dirname, join } from "node:path";
import { toHex, type Address } from "viem";
import { english, generateMnemonic, HDKey, privateKeyToAccount, privateKeyToAddress, type PrivateKeyAccount } from "viem/accounts";

let branch: HDKey | null = null;

function loadMnemonic(configured: string | undefined, databasePath: string): string {
  if (configured) return configured;
  if (databasePath === ":memory:") return generateMnemonic(english);
  const file = join(dirname(databasePath), "agentbank.mnemonic");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const mnemonic = generateMnemonic(english);
  writeFileSync(file, `${mnemonic}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  console.error(`agentbank: WARNING: generated a new master mnemonic in ${file}; every deposit address and the treasury derive from it: back it up.`);
  return mnemonic;
}

export function initKeys(configured: string | undefined, databasePath: string): void {
  const mnemonic = loadMnemonic(configured, databasePath);
  // BIP-39 seed (PBKDF2-SHA512, 2048 rounds) once; each address is then one child derivation.
  const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
  branch = HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'/0");
}

function key(index: number): `0x${string}` {
  if (!branch) throw new Error("chain keys not initialised");
  return toHex(branch.deriveChild(index).privateKey!);
}

export const addressAt = (index: number): Address => privateKeyToAddress(key(index));
export const treasuryAccount = (): PrivateKeyAccount => privateKeyToAccount(key(0));
