// `agentbank keys encrypt`: the master mnemonic beside the database (agentbank.mnemonic, or
// MASTER_MNEMONIC) sealed with a passphrase into agentbank.mnemonic.enc (src/chain/sealed-mnemonic.ts);
// the plain file is overwritten and removed only once the sealed one, read back from the disk, opens to
// the same phrase. On a sealed file, NEW_MASTER_MNEMONIC_PASSPHRASE changes its passphrase. The
// passphrase comes from where the service takes it: MASTER_MNEMONIC_PASSPHRASE or systemd's credential.
import { validateMnemonic } from "@scure/bip39";
import { chmodSync, chownSync, closeSync, existsSync, fstatSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { english } from "viem/accounts";
import { MIN_PASSPHRASE_LENGTH, mnemonicPassphrase, openSealedFile, PLAIN_FILE, seal, SEALED_FILE, unseal, type Passphrase } from "../chain/sealed-mnemonic";
import { withoutLineEnd, type Config } from "../config";

/** Flushes a file's or a folder's entry to the disk. */
function fsyncPath(path: string): void {
  const handle = openSync(path, "r");
  try {
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
}

/**
 * Writes the sealed file through a staging file that is read back and opened before it takes the
 * file's name (one rename: never half a file). Returns how long the unlock took, in milliseconds.
 */
function writeSealed(file: string, folder: string, mnemonic: string, passphrase: Passphrase): number {
  const staging = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(staging, seal(mnemonic, passphrase.value), { mode: 0o600, flag: "wx" });
    chmodSync(staging, 0o600);
    // Run as root (sudo), the file still belongs to the service's user, who owns the folder.
    if (process.getuid?.() === 0) chownSync(staging, statSync(folder).uid, statSync(folder).gid);
    fsyncPath(staging);
    const started = performance.now();
    if (unseal(readFileSync(staging, "utf8"), passphrase, staging) !== mnemonic) throw new Error(`${staging} did not read back as written: nothing was changed`);
    const unlockMs = Math.round(performance.now() - started);
    renameSync(staging, file);
    fsyncPath(folder);
    return unlockMs;
  } finally {
    rmSync(staging, { force: true });
  }
}

/**
 * Overwrites the file with zeros, flushes that, then removes it. On a disk that writes in place no copy
 * of the phrase is left in its blocks; copy-on-write filesystems, snapshots and SSDs may keep the old
 * blocks (docs/security.md, "Keys at rest").
 */
function shred(file: string, folder: string): void {
  const handle = openSync(file, "r+");
  try {
    writeSync(handle, Buffer.alloc(fstatSync(handle).size));
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
  unlinkSync(file);
  fsyncPath(folder);
}

export function encryptMnemonic(config: Config) {
  const folder = config.dataFolder;
  const [sealedFile, plainFile] = [join(folder, SEALED_FILE), join(folder, PLAIN_FILE)];
  const newPassphrase = withoutLineEnd(process.env.NEW_MASTER_MNEMONIC_PASSPHRASE ?? "") || undefined;
  const sealed = existsSync(sealedFile) ? openSealedFile(sealedFile, config.chain.passphrase) : null;
  const plain = existsSync(plainFile) ? readFileSync(plainFile, "utf8").trim() : null;
  if (sealed !== null && plain !== null && sealed !== plain) {
    throw new Error(`${plainFile} and ${sealedFile} hold different phrases: keep the one the database's deposit addresses derive from, remove the other, and run this again`);
  }
  if (sealed !== null && plain === null && newPassphrase === undefined) {
    throw new Error(`${sealedFile} is encrypted already: to change its passphrase, give the new one in NEW_MASTER_MNEMONIC_PASSPHRASE`);
  }
  if (sealed === null && newPassphrase !== undefined) {
    throw new Error(`NEW_MASTER_MNEMONIC_PASSPHRASE changes the passphrase of ${sealedFile}, which is not there: the first encryption takes MASTER_MNEMONIC_PASSPHRASE`);
  }
  const from = sealed !== null ? sealedFile : plain !== null ? plainFile : "MASTER_MNEMONIC";
  const mnemonic = sealed ?? plain ?? config.chain.mnemonic;
  if (!mnemonic) throw new Error(`nothing to encrypt: neither ${plainFile} nor MASTER_MNEMONIC is there`);
  if (!validateMnemonic(mnemonic, english)) throw new Error(`${from}: not a valid BIP-39 phrase (unknown word or wrong checksum); nothing was written`);

  let unlockMs: number | null = null;
  // A first encryption, or a new passphrase; otherwise an earlier run stopped before removing the plain file.
  if (sealed === null || newPassphrase !== undefined) {
    const passphrase = newPassphrase !== undefined ? { value: newPassphrase, from: "NEW_MASTER_MNEMONIC_PASSPHRASE" } : mnemonicPassphrase(config.chain.passphrase);
    if (!passphrase) throw new Error("no passphrase: give it in MASTER_MNEMONIC_PASSPHRASE, or as the systemd credential master-mnemonic-passphrase (docs/deploy.md)");
    if ([...passphrase.value].length < MIN_PASSPHRASE_LENGTH) {
      throw new Error(`the passphrase from ${passphrase.from} is shorter than ${MIN_PASSPHRASE_LENGTH} characters: take a long random one (openssl rand -base64 24); nothing was written`);
    }
    unlockMs = writeSealed(sealedFile, folder, mnemonic, passphrase);
  }
  if (plain !== null) shred(plainFile, folder);
  return {
    encrypted: sealedFile,
    from,
    removed: plain !== null ? plainFile : null,
    passphraseChanged: sealed !== null && newPassphrase !== undefined,
    unlockMs,
    ...(from === "MASTER_MNEMONIC" ? { next: "remove MASTER_MNEMONIC from the environment: while it is set the service uses it, not the encrypted file" } : {}),
  };
}
