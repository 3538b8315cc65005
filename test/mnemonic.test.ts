// Keys at rest (issue 35): `agentbank keys encrypt` seals the master mnemonic with a passphrase; the
// service starts from the sealed file with MASTER_MNEMONIC_PASSPHRASE or systemd's credential, derives
// the same addresses and withdraws on chain; without the passphrase, or with a wrong one, it stops with
// one line; a plain file still works, with a warning; backups hold no key material; neither the phrase
// nor the passphrase reaches a child process's environment.
import { mnemonicToSeedSync } from "@scure/bip39";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseUnits, toHex } from "viem";
import { english, generateMnemonic, generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { startAnvil, type Anvil } from "./chain/anvil";
import { cli } from "./helpers/cli";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

setDefaultTimeout(120_000);

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src/main.ts");
const PASSPHRASE = `a passphrase of the test ${crypto.randomUUID()}`;
const work = mkdtempSync(join(tmpdir(), "agentbank-mnemonic-test-"));
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  rmSync(work, { recursive: true, force: true });
});

/** `agentbank serve` expected to stop at start: its exit status and every line it wrote. */
async function startThatFails(env: Record<string, string>) {
  const child = Bun.spawn(["bun", "run", MAIN, "serve"], { env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATABASE_URL: "", ...env }, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill(), 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  return { code, lines: `${stdout}${stderr}`.split("\n").filter(Boolean) };
}

/** What must never be written anywhere but the sealed file: the phrase (any three words of it in a row), its seed, the treasury's key. */
function keyMaterial(mnemonic: string): Buffer[] {
  const words = mnemonic.split(" ");
  const seed = Buffer.from(mnemonicToSeedSync(mnemonic));
  const treasuryKey = Buffer.from(mnemonicToAccount(mnemonic, { addressIndex: 0 }).getHdKey().privateKey!);
  return [
    ...words.slice(2).map((_, i) => Buffer.from(words.slice(i, i + 3).join(" "))),
    seed,
    Buffer.from(seed.toString("hex")),
    treasuryKey,
    Buffer.from(toHex(treasuryKey).slice(2)),
  ];
}

const containsAny = (bytes: Buffer, secrets: Buffer[]) => secrets.some((secret) => bytes.includes(secret));

describe.skipIf(TEST_POSTGRES !== undefined)("a plain mnemonic file, then encrypted (SQLite: the file the first start generates)", () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(() => anvil.stop());

  test("the same addresses and a withdrawal on chain from the encrypted file; no passphrase or a wrong one: one line, exit 1; backups hold no key material", async () => {
    const chain = { CHAIN_RPC_URL: anvil.rpcUrl, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, CONFIRMATIONS: "1" };
    const backups = join(work, "backups");
    mkdirSync(backups, { mode: 0o700 });
    const plain = await startServer({ postgres: undefined, env: chain });
    servers.push(plain);
    const folder = dirname(plain.databasePath);
    const [plainFile, sealedFile] = [join(folder, "agentbank.mnemonic"), join(folder, "agentbank.mnemonic.enc")];
    const mnemonic = readFileSync(plainFile, "utf8").trim();
    const [a, b] = [await plain.register(), await plain.register()];
    expect([a, b].map((agent) => agent.registration.wallet.address)).toEqual([1, 2].map((index) => mnemonicToAccount(mnemonic, { addressIndex: index }).address));
    expect(cli(["backup", join(backups, "while-plain.db")], { DATABASE_PATH: plain.databasePath }).code).toBe(0);

    // A start from the plain file says so, and how to encrypt it.
    await plain.restart();
    const warning = await waitFor(() => plain.logs.join("").split("\n").find((line) => line.includes("unencrypted")));
    expect(JSON.parse(warning)).toEqual({ level: "warn", t: expect.any(String), msg: expect.stringContaining("agentbank keys encrypt") });
    expect(warning).toContain(plainFile);
    await plain.stop();

    const encrypted = cli(["keys", "encrypt"], { DATABASE_PATH: plain.databasePath, MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE });
    expect([encrypted.code, encrypted.stderr]).toEqual([0, ""]);
    expect(JSON.parse(encrypted.stdout)).toEqual({ encrypted: sealedFile, from: plainFile, removed: plainFile, passphraseChanged: false, unlockMs: expect.any(Number) });
    expect(existsSync(plainFile)).toBe(false);
    expect(statSync(sealedFile).mode & 0o777).toBe(0o600);
    const sealed = readFileSync(sealedFile);
    expect(JSON.parse(sealed.toString())).toEqual({ v: 1, kdf: "scrypt", N: 2 ** 17, r: 8, p: 1, salt: expect.any(String), cipher: "aes-256-gcm", nonce: expect.any(String), ct: expect.any(String) });
    expect(containsAny(sealed, keyMaterial(mnemonic))).toBe(false);

    // Without the passphrase, or with a wrong one: one line saying what is missing, exit 1, no secret in it.
    const sameDatabase = { ...chain, DATABASE_PATH: plain.databasePath };
    const missing = await startThatFails(sameDatabase);
    expect(missing).toEqual({ code: 1, lines: [expect.stringMatching(/encrypted and no passphrase was given: set MASTER_MNEMONIC_PASSPHRASE, or the systemd credential master-mnemonic-passphrase/)] });
    const wrong = await startThatFails({ ...sameDatabase, MASTER_MNEMONIC_PASSPHRASE: "not the passphrase at all" });
    expect(wrong).toEqual({ code: 1, lines: [expect.stringContaining("the passphrase from MASTER_MNEMONIC_PASSPHRASE does not open it")] });
    for (const { lines } of [missing, wrong]) {
      expect(containsAny(Buffer.from(lines.join("\n")), [...keyMaterial(mnemonic), Buffer.from(PASSPHRASE), Buffer.from("not the passphrase at all")])).toBe(false);
    }

    // With it: the addresses handed out before, the next one from the same tree, no warning.
    const server = await startServer({ postgres: undefined, env: { ...sameDatabase, MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE } });
    servers.push(server);
    for (const agent of [a, b]) expect((await server.request("GET", "/wallets/blockchain", { key: agent.apiKey })).body.address).toBe(agent.registration.wallet.address);
    const agent = await server.register();
    expect(agent.registration.wallet.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 3 }).address);
    expect(server.logs.join("")).not.toMatch(/unencrypted|plain text/);

    // The treasury the sealed file derives signs a withdrawal, which ends CONFIRMED.
    const treasury = mnemonicToAccount(mnemonic, { addressIndex: 0 }).address;
    expect((await server.admin("GET", "/admin/chain")).body.treasury.address).toBe(treasury);
    await anvil.client.request({ method: "anvil_setBalance" as never, params: [treasury, "0x56bc75e2d63100000"] as never });
    await anvil.mint(treasury, "100");
    await server.deposit(agent.id, 20);
    const target = privateKeyToAccount(generatePrivateKey()).address;
    const reply = await server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: target, amount: 7.5 } });
    expect(reply.status).toBe(200);
    const withdrawal = async () => (await server.request("GET", `/wallets/withdrawals/${reply.body.id}`, { key: agent.apiKey })).body;
    await waitFor(async () => ((await withdrawal()).status === "SUBMITTED" ? true : undefined), 15_000);
    expect(await anvil.balanceOf(target)).toBe(parseUnits("7.5", 6));
    await anvil.mine(1);
    await waitFor(async () => {
      await server.advance(1);
      return (await withdrawal()).status === "CONFIRMED" ? true : undefined;
    }, 15_000);
    expect(await server.balance(agent)).toEqual({ available: 12.5, held: 0 });
    await expectLedgerOk(server);

    // Backups, by the command and by the operator route, hold neither file nor any of the key material.
    const backup = cli(["backup", join(backups, "while-encrypted.db")], { DATABASE_PATH: plain.databasePath });
    expect([backup.code, backup.stderr]).toEqual([0, ""]);
    const download = await fetch(`${server.url}/admin/backup`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(download.status).toBe(200);
    writeFileSync(join(backups, "download.db"), new Uint8Array(await download.arrayBuffer()));
    expect(readdirSync(backups).sort()).toEqual(["download.db", "while-encrypted.db", "while-plain.db"]);
    const sealedParts = [sealed, Buffer.from(JSON.parse(sealed.toString()).ct, "base64")];
    for (const name of readdirSync(backups)) {
      expect({ name, keys: containsAny(readFileSync(join(backups, name)), [...keyMaterial(mnemonic), ...sealedParts]) }).toEqual({ name, keys: false });
    }
  });
});

test("MASTER_MNEMONIC encrypted into the data folder: the service starts from it (on PostgreSQL too), the passphrase changes, systemd's credential gives it", async () => {
  const folder = mkdtempSync(join(work, "data-"));
  const sealedFile = join(folder, "agentbank.mnemonic.enc");
  const mnemonic = generateMnemonic(english);
  const env = { DATABASE_PATH: join(folder, "agentbank.db") };
  const fromEnvironment = cli(["keys", "encrypt"], { ...env, MASTER_MNEMONIC: mnemonic, MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE });
  expect([fromEnvironment.code, fromEnvironment.stderr]).toEqual([0, ""]);
  expect(JSON.parse(fromEnvironment.stdout)).toMatchObject({ encrypted: sealedFile, from: "MASTER_MNEMONIC", removed: null, next: expect.stringContaining("remove MASTER_MNEMONIC") });

  const first = await startServer({ env: { ...env, MASTER_MNEMONIC: "", MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE } });
  servers.push(first);
  const agent = await first.register();
  expect(agent.registration.wallet.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 1 }).address);
  await first.stop();

  // Refused, the file unchanged: a new passphrase without the current one, a wrong current one, a short
  // new one, and the current one alone (nothing to do).
  const before = readFileSync(sealedFile, "utf8");
  const NEW = `another passphrase ${crypto.randomUUID()}`;
  const refusals = [
    [{ NEW_MASTER_MNEMONIC_PASSPHRASE: NEW }, "no passphrase was given"],
    [{ MASTER_MNEMONIC_PASSPHRASE: "not the passphrase at all", NEW_MASTER_MNEMONIC_PASSPHRASE: NEW }, "does not open it"],
    [{ MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE, NEW_MASTER_MNEMONIC_PASSPHRASE: "short" }, "shorter than 12 characters"],
    [{ MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE }, "encrypted already: to change its passphrase, give the new one in NEW_MASTER_MNEMONIC_PASSPHRASE"],
  ] as const;
  for (const [given, message] of refusals) {
    const refused = cli(["keys", "encrypt"], { ...env, ...given });
    expect({ code: refused.code, stdout: refused.stdout, lines: refused.stderr.trim().split("\n") }).toEqual({ code: 1, stdout: "", lines: [expect.stringContaining(message)] });
  }
  expect(readFileSync(sealedFile, "utf8")).toBe(before);

  const changed = cli(["keys", "encrypt"], { ...env, MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE, NEW_MASTER_MNEMONIC_PASSPHRASE: NEW });
  expect([changed.code, changed.stderr]).toEqual([0, ""]);
  expect(JSON.parse(changed.stdout)).toMatchObject({ encrypted: sealedFile, passphraseChanged: true, removed: null });
  expect(readdirSync(folder).filter((name) => name.includes("mnemonic"))).toEqual(["agentbank.mnemonic.enc"]);
  const same = { ...first.sharedDatabaseEnv, ...env, MASTER_MNEMONIC: "" };
  expect((await startThatFails({ ...same, MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE })).code).toBe(1);

  // LoadCredentialEncrypted= decrypts the credential into $CREDENTIALS_DIRECTORY; the line end is not part of it.
  const credentials = mkdtempSync(join(work, "credentials-"));
  writeFileSync(join(credentials, "master-mnemonic-passphrase"), `${NEW}\n`, { mode: 0o400 });
  const second = await startServer({ postgres: undefined, env: { ...same, CREDENTIALS_DIRECTORY: credentials } });
  servers.push(second);
  expect((await second.request("GET", "/wallets/blockchain", { key: agent.apiKey })).body.address).toBe(agent.registration.wallet.address);
  expect((await second.register()).registration.wallet.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 2 }).address);
  await second.stop();
});

test.skipIf(TEST_POSTGRES !== undefined)("the phrase and the passphrase leave the environment once read: no child process inherits them", () => {
  const folder = mkdtempSync(join(work, "children-"));
  const mnemonic = generateMnemonic(english);
  expect(cli(["keys", "encrypt"], { DATABASE_PATH: join(folder, "agentbank.db"), MASTER_MNEMONIC: mnemonic, MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE }).code).toBe(0);
  // boot() as `agentbank serve` runs it, then children given process.env (as the backup route's is) and
  // node:child_process's, which reads process.env too.
  const script = join(folder, "children.ts");
  writeFileSync(
    script,
    `import { execFileSync } from "node:child_process";
import { boot } from ${JSON.stringify(join(ROOT, "src/boot.ts"))};
await boot();
const seen = [Bun.spawnSync(["env"], { env: { ...process.env } }).stdout.toString(), execFileSync("env").toString()].join("\\n");
console.log(JSON.stringify({ left: Object.keys(process.env).filter((name) => name.startsWith("MASTER_MNEMONIC")), inherited: seen.includes("MASTER_MNEMONIC") }));
process.exit(0);
`,
  );
  const cases = [
    { DATABASE_PATH: join(folder, "agentbank.db"), MASTER_MNEMONIC_PASSPHRASE: PASSPHRASE },
    { DATABASE_PATH: join(folder, "other.db"), MASTER_MNEMONIC: mnemonic, MASTER_MNEMONIC_PASSPHRASE: "read, and unused" },
  ];
  for (const env of cases) {
    const run = Bun.spawnSync(["bun", "run", script], { env: { ...process.env, DATABASE_URL: "", ...env }, stdout: "pipe", stderr: "pipe" });
    expect({ code: run.exitCode, stderr: run.stderr.toString() }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(run.stdout.toString().trim().split("\n").at(-1)!)).toEqual({ left: [], inherited: false });
  }
  // Bun.spawn without \`env\` hands a child the environment this process STARTED with, whatever was
  // removed from process.env since: every child the service starts is given process.env explicitly.
  const spawns = Array.from(new Bun.Glob("src/**/*.ts").scanSync(ROOT)).flatMap((file) => {
    const source = readFileSync(join(ROOT, file), "utf8");
    return [...source.matchAll(/Bun\.spawn(?:Sync)?\(/g)].map((call) => ({ file, givesEnv: /^[^;]*\benv:/.test(source.slice(call.index)) }));
  });
  expect(spawns.length).toBeGreaterThan(0);
  for (const spawn of spawns) expect(spawn).toEqual({ file: spawn.file, givesEnv: true });
});
