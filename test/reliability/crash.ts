// bun run test:crash — the compiled server on a file database is killed with SIGKILL at random moments
// while clients move money and the test clock drives subscription charges; after every restart nothing acknowledged is lost and nothing is applied twice.
//   CRASH_ROUNDS (default 20), CRASH_CLIENTS (default 16)
// Checks after each restart: every acknowledged payment and bet exists; replaying an acknowledged
// request with its Idempotency-Key returns the same resource (applied once); the ledger check is ok;
// agents' money per currency equals the money deposited (acknowledged ≤ applied ≤ attempted).
import type { Agent } from "../helpers/server";
import { DAY_MS } from "../../src/time";
import { expectLedger, startTarget } from "./target";

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);
const CLIENTS = Number(process.env.CRASH_CLIENTS ?? 16);

const server = await startTarget();
let failures = 0;
const fail = (message: string) => {
  failures += 1;
  if (failures <= 20) console.error(`FAIL: ${message}`);
};

type Ack = { key: string; agent: { apiKey: string }; path: string; body: unknown; id: string };
const acks: Ack[] = [];
let depositedAcked = 0;
let depositedAttempted = 0;
let sequence = 0;

try {
  const agents: Agent[] = [];
  for (let i = 0; i < 6; i++) {
    const agent = await server.register();
    await server.deposit(agent.id, 50, "USDC");
    agents.push(agent);
  }
  depositedAcked = depositedAttempted = 6 * 50;
  // Subscriptions are charged by the job while the clock is advanced between kills.
  const subscriptions: { id: string; payer: Agent }[] = [];
  for (let i = 0; i < 3; i++) {
    const payer = agents[i]!;
    const recipient = agents[i + 3]!;
    const reply = await server.request("POST", "/subscriptions", { key: payer.apiKey, body: { recipientId: recipient.id, amount: 0.01, currency: "USDC", frequency: "DAILY" } });
    if (reply.status !== 201) throw new Error(`subscription: ${reply.status} ${JSON.stringify(reply.body)}`);
    subscriptions.push({ id: reply.body.id, payer });
  }

  for (let round = 1; round <= ROUNDS; round++) {
    let running = true;
    const client = async () => {
      while (running) {
        const from = agents[Math.floor(Math.random() * agents.length)]!;
        let to = from;
        while (to === from) to = agents[Math.floor(Math.random() * agents.length)]!;
        const key = `crash-${++sequence}`;
        const roll = Math.random();
        let path: string;
        let body: Record<string, unknown>;
        if (roll < 0.6) {
          path = "/payments/send";
          body = { toAgentId: to.id, amount: 0.25, currency: "USDC" };
        } else if (roll < 0.8) {
          path = "/betting";
          body = { description: "crash test", condition: "it rains", amount: 0.1, currency: "USDC", expiresInHours: 1 };
        } else {
          depositedAttempted += 0.5;
          const reply = await server.admin("POST", "/admin/deposits", { agentId: from.id, amount: 0.5, currency: "USDC", reference: key }).catch(() => null);
          if (reply?.status === 201) depositedAcked += 0.5;
          continue;
        }
        const reply = await server.request("POST", path, { key: from.apiKey, body, headers: { "idempotency-key": key } }).catch(() => null);
        if (reply?.status === 201) acks.push({ key, agent: from, path, body, id: reply.body.id });
      }
    };
    const clock = async () => {
      while (running) {
        await server.admin("POST", "/admin/clock/advance", { seconds: 6 * 3600 }).catch(() => null);
        await Bun.sleep(20);
      }
    };
    const load = [...Array.from({ length: CLIENTS }, client), clock()];
    await Bun.sleep(50 + Math.random() * 400);
    const acknowledged = acks.length;
    await server.restart("SIGKILL");
    running = false;
    await Promise.all(load);

    // Every acknowledged resource exists after the crash.
    for (const ack of acks.slice(0, acknowledged)) {
      const path = ack.path === "/payments/send" ? `/payments/${ack.id}` : `/betting/${ack.id}`;
      const read = await server.request("GET", path, { key: ack.agent.apiKey });
      if (read.status !== 200) fail(`round ${round}: acknowledged ${path} answers ${read.status} after restart`);
    }
    // Replays of a sample of acknowledged requests return the same resource.
    for (const ack of acks.slice(-20)) {
      const replay = await server.request("POST", ack.path, { key: ack.agent.apiKey, body: ack.body, headers: { "idempotency-key": ack.key } });
      if (replay.status !== 201 || replay.body.id !== ack.id) fail(`round ${round}: replay of ${ack.key} gave ${replay.status} ${replay.body?.id} instead of ${ack.id}`);
    }
    // Each subscription's charges: one payment per period, never two.
    for (const subscription of subscriptions) {
      const view = (await server.request("GET", `/subscriptions/${subscription.id}`, { key: subscription.payer.apiKey })).body;
      const due = Math.floor((Date.parse((await server.request("GET", "/health")).body.timestamp) - Date.parse(view.createdAt)) / DAY_MS) + 1;
      if (view.status === "ACTIVE" && view.periodsCharged !== due) fail(`round ${round}: subscription charged ${view.periodsCharged} periods, ${due} are due`);
    }
    const check = await server.ledgerCheck();
    if (!(await expectLedger(server))) fail(`round ${round}: ledger check failed`);
    const usdc = check.totals.find((row: { currency: string }) => row.currency === "USDC");
    if (usdc.netInflow < depositedAcked - 1e-9 || usdc.netInflow > depositedAttempted + 1e-9) {
      fail(`round ${round}: deposits applied ${usdc.netInflow}, acknowledged ${depositedAcked}, attempted ${depositedAttempted}`);
    }
    console.log(`round ${round}: ${acknowledged} acknowledged so far, deposits ${usdc.netInflow} (acked ${depositedAcked}), ledger ${check.ok ? "ok" : "BROKEN"}`);
  }
  console.log(`crash: ${ROUNDS} SIGKILL rounds, ${acks.length} acknowledged writes, ${failures} lost or doubled`);
} finally {
  await server.close();
}
process.exit(failures === 0 ? 0 : 1);
