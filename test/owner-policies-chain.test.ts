// Owner policies on the two outflow paths that leave through the chain: x402 payments (against the
// official x402 servers) and withdrawals. The cap refuses before any signature or debit; a held
// outflow pays nobody until the owner approves, then is made once; declined, nothing left the
// treasury. The ledger check reconciles with the chain after each.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { TEST_MNEMONIC } from "./chain/anvil";
import { PRICE_UNITS, startOfficialX402, type OfficialX402 } from "./x402/official";
import { getPage, signIn } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

const TREASURY = getAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
const PRICE = Number(PRICE_UNITS) / 1e6;
const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address;

let x: OfficialX402;
let server: TestServer;

beforeAll(async () => {
  x = await startOfficialX402({ slowMs: 11_000 });
  await x.mint(TREASURY, "100");
  server = await startServer({
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", CHAIN_RPC_URL: x.anvil.rpcUrl, CHAIN_ID: String(x.chainId), USDC_ADDRESS: x.usdc, MASTER_MNEMONIC: TEST_MNEMONIC, CONFIRMATIONS: "1" },
  });
});
afterAll(async () => {
  await server?.close();
  await x?.stop();
});

async function funded(amount = 10): Promise<Agent> {
  const agent = await server.register();
  await server.deposit(agent.id, amount);
  return agent;
}
const setPolicy = (agent: Agent, policy: Record<string, unknown>) => server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: policy });
const pay = (agent: Agent) => server.request("POST", "/x402/pay", { key: agent.apiKey, body: { url: `${x.v1Url}/paid`, maxAmount: 1 } });
const withdraw = (agent: Agent, toAddress: string, amount: number) => server.request("POST", "/wallets/withdraw", { key: agent.apiKey, body: { toAddress, amount } });
const approve = (agent: Agent, approvalId: string) => server.request("POST", `/owner/approvals/${approvalId}/approve`, { key: agent.ownerKey });
/** The owner console's history line (its HTML) whose words include `what`. */
async function historyLine(agent: Agent, what: string): Promise<string | undefined> {
  const overview = await getPage(server, "/console", await signIn(server, agent.ownerKey));
  return overview.html.match(/<tr>.*?<\/tr>/gs)?.find((row) => row.includes(what));
}
const withdrawals = async (agent: Agent) => (await server.request("GET", "/wallets/withdrawals", { key: agent.apiKey })).body.data as any[];
/** Mines a block and lets the service's jobs (chain watcher, x402 resolver, withdrawal sender) run. */
async function settleJobs(): Promise<void> {
  await x.anvil.mine(1);
  await server.advance(1);
}

describe("x402", () => {
  test("above the per-transaction cap: 403 before any debit, nothing sent; the merchant gets nothing", async () => {
    const agent = await funded();
    await setPolicy(agent, { perTransaction: { USDC: PRICE / 2 } });
    const merchant = await x.balanceOf(x.payTo);
    const refused = await pay(agent);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "POLICY_LIMIT_EXCEEDED", details: { window: "transaction" } });
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    expect(await x.balanceOf(x.payTo)).toBe(merchant);
    await expectLedgerOk(server);
  });

  test("an address outside the service is no listed counterparty: refused under an allowlist", async () => {
    const agent = await funded();
    const friend = await server.register();
    await setPolicy(agent, { allowlist: [friend.id] });
    expect((await pay(agent)).body.error).toBe("COUNTERPARTY_NOT_ALLOWED");
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
  });

  test("held above the approval amount; approved, it pays once and the agent reads the resource's answer", async () => {
    const agent = await funded();
    await setPolicy(agent, { approvalAbove: { USDC: PRICE / 2 } });
    const merchant = await x.balanceOf(x.payTo);
    const held = await pay(agent);
    expect(held.status).toBe(202);
    expect(held.body).toMatchObject({ status: "AWAITING_APPROVAL", kind: "X402", amount: PRICE });
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: PRICE });
    expect(await x.balanceOf(x.payTo)).toBe(merchant);
    // The owner's history names where it would go: the payee's address outside the service, not "—".
    expect((await historyLine(agent, "Waiting for your approval"))?.toLowerCase()).toContain(`data-copy="${x.payTo.toLowerCase()}"`);

    const approved = await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: agent.ownerKey });
    expect(approved.body).toMatchObject({ status: "APPROVED", kind: "X402" });
    expect((await x.balanceOf(x.payTo)) - merchant).toBe(PRICE_UNITS);
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: 0 });
    const seen = (await server.request("GET", `/approvals/${held.body.approvalId}`, { key: agent.apiKey })).body;
    expect(seen.result).toMatchObject({ payment: { status: "SETTLED", amount: PRICE }, resource: { status: 200, body: { data: "v1 paid content" } } });
    // Approving again pays nothing more.
    expect((await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: agent.ownerKey })).status).toBe(409);
    expect((await x.balanceOf(x.payTo)) - merchant).toBe(PRICE_UNITS);
    expect((await historyLine(agent, "Paid for a web resource"))?.toLowerCase()).toContain(`data-copy="${x.payTo.toLowerCase()}"`);
    await settleJobs();
    await expectLedgerOk(server);
  });

  test("4 parallel approves of a held payment: one 200, three 409; the merchant is paid once", async () => {
    const agent = await funded();
    await setPolicy(agent, { approvalAbove: { USDC: PRICE / 2 } });
    const merchant = await x.balanceOf(x.payTo);
    const held = await pay(agent);
    const replies = await Promise.all([1, 2, 3, 4].map(() => approve(agent, held.body.approvalId)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409, 409, 409]);
    expect(replies.find((reply) => reply.status === 200)!.body).toMatchObject({ status: "APPROVED", kind: "X402" });
    expect((await x.balanceOf(x.payTo)) - merchant).toBe(PRICE_UNITS);
    expect(await server.balance(agent)).toEqual({ available: 10 - PRICE, held: 0 });
    await settleJobs();
    await expectLedgerOk(server);
  });

  test("held, then declined: nothing left the treasury and the hold is back", async () => {
    const agent = await funded();
    await setPolicy(agent, { approvalAbove: { USDC: PRICE / 2 } });
    const merchant = await x.balanceOf(x.payTo);
    const held = await pay(agent);
    const declined = await server.request("POST", `/owner/approvals/${held.body.approvalId}/decline`, { key: agent.ownerKey });
    expect(declined.body.status).toBe("DECLINED");
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    expect(await x.balanceOf(x.payTo)).toBe(merchant);
    await settleJobs();
    await expectLedgerOk(server);
  });
});

describe("withdrawals", () => {
  test("above the per-transaction cap: 403, no withdrawal, nothing sent", async () => {
    const agent = await funded();
    await setPolicy(agent, { perTransaction: { USDC: 2 } });
    const refused = await withdraw(agent, freshAddress(), 3);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("POLICY_LIMIT_EXCEEDED");
    expect(await withdrawals(agent)).toEqual([]);
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
  });

  test("under an allowlist only another agent's deposit address (settled inside) is a listed counterparty", async () => {
    const agent = await funded();
    const friend = await server.register();
    await setPolicy(agent, { allowlist: [friend.id] });
    expect((await withdraw(agent, freshAddress(), 1)).body.error).toBe("COUNTERPARTY_NOT_ALLOWED");
    const address = (await server.request("GET", "/wallets/blockchain", { key: friend.apiKey })).body.address;
    const inside = await withdraw(agent, address, 1);
    expect(inside.status).toBe(200);
    expect(inside.body).toMatchObject({ status: "CONFIRMED", internalAgentId: friend.id });
    expect(await server.balance(friend)).toEqual({ available: 1, held: 0 });
    await expectLedgerOk(server);
  });

  test("held; approved, one withdrawal is sent and confirmed on chain", async () => {
    const agent = await funded();
    await setPolicy(agent, { approvalAbove: { USDC: 1 } });
    const target = freshAddress();
    const held = await withdraw(agent, target, 3);
    expect(held.status).toBe(202);
    expect(await withdrawals(agent)).toEqual([]);
    expect(await x.balanceOf(target)).toBe(0n);
    const approved = await server.request("POST", `/owner/approvals/${held.body.approvalId}/approve`, { key: agent.ownerKey });
    expect(approved.body).toMatchObject({ status: "APPROVED", result: { toAddress: target, amount: 3 } });
    for (let i = 0; i < 20 && (await x.balanceOf(target)) === 0n; i++) await settleJobs();
    expect(await x.balanceOf(target)).toBe(3_000_000n);
    await settleJobs();
    expect((await withdrawals(agent)).map((w) => w.status)).toEqual(["CONFIRMED"]);
    expect(await server.balance(agent)).toEqual({ available: 7, held: 0 });
    await expectLedgerOk(server);
  });

  test("4 parallel approves of a held withdrawal: one 200, three 409; one withdrawal", async () => {
    const agent = await funded();
    await setPolicy(agent, { approvalAbove: { USDC: 1 } });
    const held = await withdraw(agent, freshAddress(), 3);
    const replies = await Promise.all([1, 2, 3, 4].map(() => approve(agent, held.body.approvalId)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await withdrawals(agent)).length).toBe(1);
    expect((await server.balance(agent)).available).toBe(7);
    for (let i = 0; i < 20 && (await withdrawals(agent))[0].status !== "CONFIRMED"; i++) await settleJobs();
    expect(await server.balance(agent)).toEqual({ available: 7, held: 0 });
    await expectLedgerOk(server);
  });

  test("held, then declined: no withdrawal, the hold is back", async () => {
    const agent = await funded();
    await setPolicy(agent, { approvalAbove: { USDC: 1 } });
    const held = await withdraw(agent, freshAddress(), 3);
    expect((await server.request("POST", `/owner/approvals/${held.body.approvalId}/decline`, { key: agent.ownerKey })).body.status).toBe("DECLINED");
    expect(await withdrawals(agent)).toEqual([]);
    expect(await server.balance(agent)).toEqual({ available: 10, held: 0 });
    await expectLedgerOk(server);
  });
});
