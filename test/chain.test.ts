import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { formatUnits, getAddress, parseUnits, type Address } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { startAnvil, startRpcProxy, TEST_MNEMONIC, testActor, type Anvil } from "./chain/anvil";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, TEST_POSTGRES, type Agent, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/** The test's funder, which sends the test deposits. */
const FUNDER = testActor(0).address;
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

/** The chain's own pace: up to 10 s for a broadcast or a confirmation. */
const until = <T>(probe: () => Promise<T | undefined>) => waitFor(probe, 10_000);

describe("without a chain", () => {
  test("the blockchain view says not_configured but shows the address; withdrawals are 503", async () => {
    const server = await startServer();
    try {
      const agent = await server.register();
      expect(agent.registration.wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const view = (await server.request("GET", "/wallets/blockchain", { key: agent.apiKey })).body;
      expect(view).toEqual({ address: agent.registration.wallet.address, network: null, chainId: null, usdcContract: null, onchainBalance: null, status: "not_configured" });
      await server.deposit(agent.id, 10);
      const withdraw = await server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: freshAddress(), amount: 1 } });
      expect(withdraw.status).toBe(503);
      expect(withdraw.body.error).toBe("CHAIN_UNAVAILABLE");
      expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
      expect((await server.admin("GET", "/admin/chain")).status).toBe(503);
      expect((await server.request("GET", "/wallets/withdrawals", { key: agent.apiKey })).body.pagination.total).toBe(0);
      expect((await server.request("GET", `/wallets/withdrawals/${crypto.randomUUID()}`, { key: agent.apiKey })).status).toBe(404);
      const other = await server.register();
      expect(other.registration.wallet.address).not.toBe(agent.registration.wallet.address);
    } finally {
      await server.close();
    }
  });

  test("without MASTER_MNEMONIC a 0600 file beside the database keeps every address stable", async () => {
    // The file is the SQLite mode's; with PostgreSQL, MASTER_MNEMONIC is required (keys.ts).
    const server = await startServer({ postgres: undefined });
    try {
      const file = join(dirname(server.databasePath), "agentbank.mnemonic");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const mnemonic = readFileSync(file, "utf8").trim();
      expect(server.logs.join("").match(/back it up/g)).toHaveLength(1);
      const first = await server.register();
      const second = await server.register();
      // BIP-44 index 1 upward; 0 is the treasury.
      expect(first.registration.wallet.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 1 }).address);
      expect(second.registration.wallet.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 2 }).address);
      await server.restart("SIGKILL");
      expect(server.logs.join("")).not.toContain("back it up");
      expect((await server.request("GET", "/wallets/blockchain", { key: first.apiKey })).body.address).toBe(first.registration.wallet.address);
      expect((await server.register()).registration.wallet.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: 3 }).address);
      await server.stop();
      // Another mnemonic, or a lost file, would orphan the addresses handed out: the start refuses.
      const sameDatabase = { DATABASE_PATH: server.databasePath };
      await expect(startServer({ postgres: undefined, env: { ...sameDatabase, MASTER_MNEMONIC: TEST_MNEMONIC } })).rejects.toThrow(
        /chain error: the master mnemonic does not derive the deposit addresses in the database/,
      );
      rmSync(file);
      await expect(startServer({ postgres: undefined, env: sameDatabase })).rejects.toThrow(/chain error: the database has deposit addresses but neither MASTER_MNEMONIC nor/);
      await expect(startServer({ postgres: undefined, env: { MASTER_MNEMONIC: "test ".repeat(12) } })).rejects.toThrow(/MASTER_MNEMONIC: not a valid BIP-39 phrase/);
    } finally {
      await server.close();
    }
  });

  test.skipIf(TEST_POSTGRES === undefined)("with DATABASE_URL, MASTER_MNEMONIC is required: instances must derive the same keys", async () => {
    await expect(startServer({ env: { MASTER_MNEMONIC: "" } })).rejects.toThrow(/chain error: with DATABASE_URL, set MASTER_MNEMONIC/);
  });

  test("a wrong CHAIN_ID stops the start with one line", async () => {
    const anvil = await startAnvil();
    try {
      await expect(
        startServer({ env: { CHAIN_RPC_URL: anvil.rpcUrl, CHAIN_ID: "8453", USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC } }),
      ).rejects.toThrow(/CHAIN_ID is 8453 but the RPC at CHAIN_RPC_URL serves chain 31337/);
    } finally {
      anvil.stop();
    }
  });
});

describe("on a local EVM", () => {
  let anvil: Anvil;
  let proxy: ReturnType<typeof startRpcProxy>;
  let server: TestServer;

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = startRpcProxy(anvil.rpcUrl);
    server = await startServer({
      env: { CHAIN_RPC_URL: proxy.url, CHAIN_ID: String(anvil.chainId), USDC_ADDRESS: anvil.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "2" },
    });
  });
  afterAll(async () => {
    await server.close();
    proxy.stop();
    anvil.stop();
  });

  const withdraw = (agent: Agent, body: Record<string, unknown>) => server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body });
  const withdrawal = async (agent: Agent, id: string) => (await server.request("GET", `/wallets/withdrawals/${id}`, { key: agent.apiKey })).body;

  test("addresses are stable and derived from the mnemonic; the view reads the balance live", async () => {
    const agent = await server.register();
    const view = (await server.request("GET", "/wallets/blockchain", { key: agent.apiKey })).body;
    expect(view).toEqual({ address: agent.registration.wallet.address, network: "anvil", chainId: 31337, usdcContract: anvil.usdc, onchainBalance: 0, status: "ok" });
    await anvil.transfer(view.address, "1.25");
    expect((await server.request("GET", "/wallets/blockchain", { key: agent.apiKey })).body.onchainBalance).toBe(1.25);
  });

  test("a deposit is credited exactly once, after the confirmations, also across a restart", async () => {
    const agent = await server.register();
    const address = agent.registration.wallet.address as Address;
    await anvil.transfer(address, "12.5");
    await server.advance(1);
    // Mined in one block: one confirmation of the two required.
    expect(await server.balance(agent)).toEqual({ available: 0, held: 0 });
    await server.restart("SIGKILL");
    await anvil.mine(1);
    await server.advance(1);
    expect(await server.balance(agent)).toEqual({ available: 12.5, held: 0 });
    await anvil.mine(3);
    await server.advance(1);
    await server.restart();
    await server.advance(1);
    expect(await server.balance(agent)).toEqual({ available: 12.5, held: 0 });
    const notices = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: agent.apiKey })).body.data;
    expect(notices.filter((m: { metadata: { kind: string } }) => m.metadata.kind === "deposit.credited")).toHaveLength(1);
    const history = (await server.request("GET", "/wallets/history", { key: agent.apiKey })).body.data;
    expect(history[0]).toMatchObject({ type: "DEPOSIT", amount: 12.5, reference: { type: "chain_deposit" } });
    // The deposit stays on the agent's address, which holds what was credited to it (read in JSON-RPC
    // batches here: this chain has no Multicall3).
    const { custody } = (await server.ledgerCheck()).chain;
    expect(custody.deposits).toMatchObject({ read: { via: "json-rpc-batch" }, withDifference: 0 });
    expect(custody.onChain.depositAddresses).toBe(custody.deposits.credited);
    await expectLedgerOk(server);
  });

  test("a withdrawal arrives on chain with the exact amount and ends CONFIRMED", async () => {
    await anvil.mint(TREASURY, "1000");
    const treasuryBefore = await anvil.balanceOf(TREASURY);
    const agent = await server.register();
    await server.deposit(agent.id, 20);
    const target = freshAddress();
    const reply = await withdraw(agent, { toAddress: target, amount: 7.123456 });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ agentId: agent.id, toAddress: target, amount: 7.123456, currency: "USDC", status: "PENDING" });
    expect(await server.balance(agent)).toEqual({ available: 12.876544, held: 0 });
    const submitted = await until(async () => {
      const current = await withdrawal(agent, reply.body.id);
      return current.status === "SUBMITTED" ? current : undefined;
    });
    expect(submitted.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await anvil.balanceOf(target)).toBe(parseUnits("7.123456", 6));
    await anvil.mine(2);
    await server.advance(1);
    expect((await withdrawal(agent, reply.body.id)).status).toBe("CONFIRMED");
    expect(await server.balance(agent)).toEqual({ available: 12.876544, held: 0 });
    // The treasury moved exactly what the ledger paid out (deposits are not swept into it).
    expect(treasuryBefore - (await anvil.balanceOf(TREASURY))).toBe(parseUnits("7.123456", 6));
    const list = (await server.request("GET", "/wallets/withdrawals", { key: agent.apiKey })).body;
    expect(list).toEqual({ data: [{ ...submitted, status: "CONFIRMED", updatedAt: list.data[0].updatedAt }], pagination: { total: 1, limit: 20, offset: 0, hasMore: false, nextAfter: null } });
    const stranger = await server.register();
    expect((await server.request("GET", `/wallets/withdrawals/${reply.body.id}`, { key: stranger.apiKey })).status).toBe(404);
    const chain = (await server.admin("GET", "/admin/chain")).body;
    expect(chain.treasury.address).toBe(TREASURY);
    expect(chain.withdrawalsInFlight).toEqual([]);
    await expectLedgerOk(server);
  });

  test("a treasury without enough USDC fails the withdrawal and returns the funds", async () => {
    // The operator moves the treasury's USDC away (its nonce moves outside the service too).
    const held = await anvil.balanceOf(TREASURY);
    const drained = await anvil.sendAsTreasury("transfer", [freshAddress(), held]);
    expect(await anvil.balanceOf(TREASURY)).toBe(0n);
    const agent = await server.register();
    await server.deposit(agent.id, 50);
    const target = freshAddress();
    const reply = await withdraw(agent, { toAddress: target, amount: 50 });
    expect(reply.status).toBe(200);
    expect(await server.balance(agent)).toEqual({ available: 0, held: 0 });
    await until(async () => ((await withdrawal(agent, reply.body.id)).status === "SUBMITTED" ? true : undefined));
    await anvil.mine(2);
    await server.advance(1);
    const failed = await withdrawal(agent, reply.body.id);
    expect(failed.status).toBe("FAILED");
    expect(failed.error).toContain("reverted");
    expect(await server.balance(agent)).toEqual({ available: 50, held: 0 });
    expect(await anvil.balanceOf(target)).toBe(0n);
    const notices = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: agent.apiKey })).body.data;
    expect(notices[0].metadata).toMatchObject({ kind: "withdrawal.failed", amount: 50 });
    const history = (await server.request("GET", "/wallets/history", { key: agent.apiKey })).body.data;
    expect(history.map((entry: { type: string }) => entry.type).slice(0, 2)).toEqual(["WITHDRAWAL_RETURNED", "WITHDRAWAL"]);
    // The reconciliation sees USDC leave the treasury that no ledger entry explains...
    const check = await server.ledgerCheck();
    expect(check.ok).toBe(false);
    expect(check.chain).toMatchObject({ status: "mismatch", difference: -Number(formatUnits(held, 6)), missingTransfers: [] });
    expect(check.chain.unexplainedTransfers).toEqual([{ txHash: drained.transactionHash, logIndex: expect.any(Number), to: expect.any(String), amount: Number(formatUnits(held, 6)) }]);
    // ...until the operator explains it.
    const unexplained = check.chain.unexplainedTransfers[0];
    const ack = await server.admin("POST", "/admin/chain/acknowledge", { txHash: unexplained.txHash, logIndex: unexplained.logIndex, reason: "moved to cold storage" });
    expect(ack.status).toBe(200);
    expect((await server.admin("POST", "/admin/chain/acknowledge", { txHash: `0x${"0".repeat(64)}`, logIndex: 0, reason: "x" })).status).toBe(404);
    await expectLedgerOk(server);
    expect((await server.ledgerCheck()).chain).toMatchObject({ status: "ok", difference: 0, movedByOperator: Number(formatUnits(held, 6)) });
  });

  test("killed between the debit and the broadcast, the restarted service sends exactly one transfer", async () => {
    await anvil.mint(TREASURY, "100");
    for (const mode of ["down", "no-broadcast"] as const) {
      const agent = await server.register();
      await server.deposit(agent.id, 10);
      const target = freshAddress();
      proxy.set(mode);
      const reply = await withdraw(agent, { toAddress: target, amount: 4 });
      expect(reply.status).toBe(200);
      if (mode === "no-broadcast") await until(async () => ((await withdrawal(agent, reply.body.id)).status === "SUBMITTED" ? true : undefined));
      else await Bun.sleep(300);
      expect(await anvil.balanceOf(target)).toBe(0n);
      await server.restart("SIGKILL");
      proxy.set("up");
      await server.advance(1);
      await until(async () => ((await anvil.balanceOf(target)) > 0n ? true : undefined));
      await anvil.mine(2);
      await server.advance(1);
      await server.advance(1);
      expect((await withdrawal(agent, reply.body.id)).status).toBe("CONFIRMED");
      expect(await anvil.balanceOf(target)).toBe(parseUnits("4", 6));
      expect(await anvil.transferLogs(target)).toHaveLength(1);
      expect(await server.balance(agent)).toEqual({ available: 6, held: 0 });
    }
    await expectLedgerOk(server);
  });

  test("bad addresses, amounts and currencies are 400 and debit nothing", async () => {
    const agent = await server.register();
    await server.deposit(agent.id, 10);
    const good = freshAddress();
    const badChecksum = good.slice(0, 2) + good.slice(2).split("").map((c, i) => (i === 3 && /[a-f]/i.test(c) ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c)).join("");
    for (const body of [
      { toAddress: "0x123", amount: 1 },
      { toAddress: "0x0000000000000000000000000000000000000000", amount: 1 },
      ...(badChecksum !== good ? [{ toAddress: badChecksum, amount: 1 }] : []),
      { toAddress: "not an address", amount: 1 },
      { toAddress: good, amount: 0.001 },
      { toAddress: good, amount: 1.0000001 },
      { toAddress: good, amount: -1 },
      { toAddress: good, amount: 0 },
      { toAddress: good, amount: 1, currency: "EUR" },
      { toAddress: good },
    ]) {
      const reply = await withdraw(agent, body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
    }
    expect((await withdraw(agent, { toAddress: good.toLowerCase(), amount: 100.01 })).body.error).toBe("TIER_LIMIT_EXCEEDED");
    expect((await withdraw(agent, { toAddress: good.toLowerCase(), amount: 11 })).body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    expect((await server.request("GET", "/wallets/withdrawals", { key: agent.apiKey })).body.pagination.total).toBe(0);
  });

  test("a withdrawal to another agent's deposit address settles inside the ledger, once, with no chain transaction", async () => {
    const sender = await server.register();
    const recipient = await server.register();
    const blocker = await server.register();
    await server.deposit(sender.id, 10);
    const treasuryBefore = await anvil.balanceOf(TREASURY);
    const reply = await withdraw(sender, { toAddress: recipient.registration.wallet.address.toLowerCase(), amount: 4 });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ status: "CONFIRMED", txHash: null, internalAgentId: recipient.id, amount: 4 });
    expect(await server.balance(sender)).toEqual({ available: 6, held: 0 });
    expect(await server.balance(recipient)).toEqual({ available: 4, held: 0 });
    await anvil.mine(3);
    await server.advance(1);
    // Nothing went on chain, so the watcher has nothing to credit twice.
    expect(await server.balance(recipient)).toEqual({ available: 4, held: 0 });
    expect(await anvil.balanceOf(TREASURY)).toBe(treasuryBefore);
    const received = (await server.request("GET", "/wallets/history", { key: recipient.apiKey })).body.data;
    expect(received[0]).toMatchObject({ type: "DEPOSIT", amount: 4, counterpartyId: sender.id, reference: { type: "withdrawal", id: reply.body.id } });
    expect((await server.request("GET", "/messages/inbox?type=notification.financial", { key: recipient.apiKey })).body.data[0].metadata).toMatchObject({ kind: "deposit.credited", internal: true, amount: 4 });
    // Blocks apply as they do to a payment; your own address and the treasury are refused.
    await server.request("POST", "/agents/me/block", { key: blocker.apiKey, body: { agentId: sender.id } });
    expect((await withdraw(sender, { toAddress: blocker.registration.wallet.address, amount: 1 })).body.error).toBe("FORBIDDEN");
    expect((await withdraw(sender, { toAddress: sender.registration.wallet.address, amount: 1 })).status).toBe(400);
    expect((await withdraw(sender, { toAddress: TREASURY, amount: 1 })).status).toBe(400);
    expect(await server.balance(sender)).toEqual({ available: 6, held: 0 });
    await expectLedgerOk(server);
  });

  test("a deposit reorganised away before its confirmations is never credited", async () => {
    const agent = await server.register();
    const address = agent.registration.wallet.address as Address;
    await anvil.mint(FUNDER, "8");
    const snapshot = await anvil.snapshot();
    await anvil.send("transfer", [address, parseUnits("8", 6)]);
    await server.advance(1);
    expect(await server.balance(agent)).toEqual({ available: 0, held: 0 });
    // The block holding the transfer (one confirmation of two) disappears; the chain grows without it.
    await anvil.revert(snapshot);
    expect(await anvil.balanceOf(address)).toBe(0n);
    await anvil.mine(3);
    await server.advance(1);
    expect(await server.balance(agent)).toEqual({ available: 0, held: 0 });
    await anvil.transfer(address, "3");
    await anvil.mine(1);
    await server.advance(1);
    expect(await server.balance(agent)).toEqual({ available: 3, held: 0 });
    const watcher = (await server.admin("GET", "/admin/chain")).body.chainWatcher;
    expect(watcher).toMatchObject({ lagBlocks: 1, confirmations: 2 });
    await expectLedgerOk(server);
  });

  test("a nonce taken by another transaction fails the withdrawal (RPC errors decide nothing); the next one goes through", async () => {
    await anvil.mint(TREASURY, "20");
    const agent = await server.register();
    await server.deposit(agent.id, 10);
    const target = freshAddress();
    proxy.set("no-broadcast");
    const reply = await withdraw(agent, { toAddress: target, amount: 3 });
    await until(async () => ((await withdrawal(agent, reply.body.id)).status === "SUBMITTED" ? true : undefined));
    // The operator spends the treasury's next nonce outside the service: one confirmation proves nothing yet.
    await anvil.sendAsTreasury("approve", [freshAddress(), 1n]);
    await server.advance(1);
    expect((await withdrawal(agent, reply.body.id)).status).toBe("SUBMITTED");
    await anvil.mine(1);
    proxy.set("down");
    await server.advance(1);
    expect((await withdrawal(agent, reply.body.id)).status).toBe("SUBMITTED");
    expect(await server.balance(agent)).toEqual({ available: 7, held: 0 });
    proxy.set("up");
    await server.advance(1);
    const failed = await withdrawal(agent, reply.body.id);
    expect(failed).toMatchObject({ status: "FAILED", error: "the transaction was replaced and never mined" });
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    expect(await anvil.balanceOf(target)).toBe(0n);
    const notices = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: agent.apiKey })).body.data;
    expect(notices[0].metadata).toMatchObject({ kind: "withdrawal.failed", withdrawalId: reply.body.id, amount: 3 });

    // The next withdrawal takes the following nonce; an Idempotency-Key replay sends nothing more.
    const request = () => server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress: target, amount: 2 }, headers: { "idempotency-key": "withdraw-2" } });
    const first = await request();
    const replay = await request();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    await until(async () => ((await anvil.balanceOf(target)) > 0n ? true : undefined));
    await anvil.mine(2);
    await server.advance(1);
    expect((await withdrawal(agent, first.body.id)).status).toBe("CONFIRMED");
    expect(await anvil.transferLogs(target)).toHaveLength(1);
    expect(await anvil.balanceOf(target)).toBe(parseUnits("2", 6));
    expect(await server.balance(agent)).toEqual({ available: 8, held: 0 });
    expect((await server.request("GET", "/wallets/withdrawals", { key: agent.apiKey })).body.pagination.total).toBe(2);
    await expectLedgerOk(server);
  });
});
