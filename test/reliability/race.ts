// bun run test:race — the Jepsen "bank" workload on one machine: many clients move money among a few
// accounts at once while readers watch. Totals never change, no read sees a negative balance, and no
// read sees a torn transfer (money that left one account without arriving in the other).
//   RACE_SECONDS (default 30), RACE_CLIENTS (default 32), RACE_ACCOUNTS (default 5)
import type { Agent } from "../helpers/server";
import { expectLedger, startTarget } from "./target";

const SECONDS = Number(process.env.RACE_SECONDS ?? 30);
const CLIENTS = Number(process.env.RACE_CLIENTS ?? 32);
const ACCOUNTS = Number(process.env.RACE_ACCOUNTS ?? 5);
const FUND = 1000;

const server = await startTarget();
let failures = 0;
const fail = (message: string) => {
  failures += 1;
  if (failures <= 20) console.error(`FAIL: ${message}`);
};

try {
  const agents: Agent[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const agent = await server.register();
    await server.deposit(agent.id, FUND, "USDC");
    agents.push(agent);
  }
  const total = FUND * ACCOUNTS;
  const deadline = Date.now() + SECONDS * 1000;
  const counts = { transfers: 0, refused: 0, reads: 0, snapshots: 0 };

  const writer = async () => {
    while (Date.now() < deadline) {
      const from = agents[Math.floor(Math.random() * agents.length)]!;
      let to = from;
      while (to === from) to = agents[Math.floor(Math.random() * agents.length)]!;
      const amount = Math.round((0.01 + Math.random() * 99.99) * 100) / 100;
      const reply = await server.request("POST", "/payments/send", { key: from.apiKey, body: { toAgentId: to.id, amount, currency: "USDC" } });
      if (reply.status === 201) counts.transfers += 1;
      else if (reply.status === 400 && reply.body?.error === "INSUFFICIENT_BALANCE") counts.refused += 1;
      else if (reply.status === 403 && reply.body?.error === "TIER_LIMIT_EXCEEDED") counts.refused += 1;
      else fail(`transfer answered ${reply.status} ${JSON.stringify(reply.body)}`);
    }
  };
  const balanceReader = async () => {
    while (Date.now() < deadline) {
      const agent = agents[Math.floor(Math.random() * agents.length)]!;
      const { available, held } = await server.balance(agent, "USDC");
      counts.reads += 1;
      if (available < 0 || held < 0) fail(`negative balance read: ${available}/${held}`);
      if (available > total) fail(`balance above the total: ${available}`);
    }
  };
  // One request reads every account in one SQLite snapshot: the sum must always be the total.
  const snapshotReader = async () => {
    while (Date.now() < deadline) {
      const check = await server.ledgerCheck();
      counts.snapshots += 1;
      const usdc = check.totals.find((row: { currency: string }) => row.currency === "USDC");
      const sum = Math.round((usdc.agentsAvailable + usdc.agentsHeld) * 1e6);
      if (sum !== total * 1e6) fail(`torn read: agents hold ${sum / 1e6}, expected ${total}`);
      if (!check.ok) fail(`ledger check failed mid-run: ${JSON.stringify(check).slice(0, 300)}`);
    }
  };

  await Promise.all([
    ...Array.from({ length: CLIENTS }, writer),
    ...Array.from({ length: 4 }, balanceReader),
    snapshotReader(),
  ]);

  let final = 0;
  for (const agent of agents) final += (await server.balance(agent, "USDC")).available;
  if (Math.round(final * 1e6) !== total * 1e6) fail(`final total ${final}, expected ${total}`);
  if (!(await expectLedger(server))) fail("final ledger check failed");
  console.log(
    `race: ${SECONDS}s, ${CLIENTS} clients, ${ACCOUNTS} accounts: ${counts.transfers} transfers, ${counts.refused} refused, ` +
      `${counts.reads} balance reads, ${counts.snapshots} snapshot reads; total ${final.toFixed(6)} (expected ${total}); failures ${failures}`,
  );
} finally {
  await server.close();
}
process.exit(failures === 0 ? 0 : 1);
