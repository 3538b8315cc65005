// Races and bounds (issue 22): parallel rotations with one API key replace it once; a failed webhook
// delivery is sent again a bounded number of times, per event and per agent, and past the bound the
// answer is 429 with no request going out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

let server: TestServer;
/** A webhook receiver that answers 500 to everything and counts what it got, per webhook-id. */
let receiver: ReturnType<typeof Bun.serve>;
const received = new Map<string, number>();

beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const id = request.headers.get("webhook-id") ?? "";
      received.set(id, (received.get(id) ?? 0) + 1);
      return new Response("nope", { status: 500 });
    },
  });
});
afterAll(async () => {
  receiver?.stop(true);
  await server.close();
});

describe("API key rotation", () => {
  test("10 parallel rotations with one key: exactly one 200, the others 401; only its new key works", async () => {
    const agent = await server.register();
    const replies = await Promise.all(Array.from({ length: 10 }, () => server.request("POST", "/agents/me/keys/rotate", { key: agent.apiKey })));
    const rotated = replies.filter((reply) => reply.status === 200);
    expect(rotated.length).toBe(1);
    for (const refused of replies.filter((reply) => reply.status !== 200)) {
      expect(refused.status).toBe(401);
      expect(refused.body.error).toBe("UNAUTHORIZED");
    }
    const newKey = rotated[0]!.body.apiKey as string;
    expect((await server.request("GET", "/agents/me", { key: newKey })).body.id).toBe(agent.id);
    expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(401);
  });
});

/** An agent whose webhook always fails, and `events` payments to it (one failed delivery each, waited for). */
async function failingDeliveries(events: number): Promise<{ agent: Agent; failed: { id: string; eventId: string }[] }> {
  const agent = await server.register();
  await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: `http://127.0.0.1:${receiver.port}/hook` } });
  const payer = await server.register();
  await server.deposit(payer.id, events);
  for (let i = 0; i < events; i++) await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: agent.id, amount: 1, currency: "USDC" } });
  const failed = await waitFor(async () => {
    const list = (await server.request("GET", "/agents/me/webhook/deliveries?limit=100", { key: agent.apiKey })).body.data as { id: string; eventId: string; outcome: string }[];
    return list.length === events && list.every((delivery) => delivery.outcome === "FAILED") ? list : undefined;
  }, 20_000);
  return { agent, failed };
}

const resend = (agent: Agent, deliveryId: string) => server.request("POST", `/agents/me/webhook/deliveries/${deliveryId}/resend`, { key: agent.apiKey });

/** Resends the event of `delivery` and waits until that attempt is recorded. */
async function resendAndWait(agent: Agent, delivery: { id: string; eventId: string }): Promise<number> {
  const before = received.get(delivery.eventId) ?? 0;
  const reply = await resend(agent, delivery.id);
  if (reply.status !== 202) return reply.status;
  await waitFor(async () => {
    const list = (await server.request("GET", "/agents/me/webhook/deliveries?limit=100", { key: agent.apiKey })).body.data as { eventId: string }[];
    return list.filter((d) => d.eventId === delivery.eventId).length > before ? true : undefined;
  });
  return reply.status;
}

describe("webhook resend is bounded", () => {
  test("5 resends of one event an hour; the 6th is 429 with Retry-After and sends nothing; an hour later it may again", async () => {
    const { agent, failed } = await failingDeliveries(1);
    const delivery = failed[0]!;
    for (let i = 0; i < 5; i++) expect(await resendAndWait(agent, delivery)).toBe(202);
    expect(received.get(delivery.eventId)).toBe(6);
    // Naming the newest attempt instead of the first changes nothing: the bound is the event's.
    const newest = (await server.request("GET", "/agents/me/webhook/deliveries?limit=1", { key: agent.apiKey })).body.data[0];
    for (const id of [delivery.id, newest.id]) {
      const refused = await resend(agent, id);
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe("RATE_LIMIT_EXCEEDED");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    }
    // Parallel asks past the bound send nothing either.
    const burst = await Promise.all(Array.from({ length: 10 }, () => resend(agent, delivery.id)));
    expect(new Set(burst.map((reply) => reply.status))).toEqual(new Set([429]));
    await Bun.sleep(300);
    expect(received.get(delivery.eventId)).toBe(6);
    await server.advance(3601);
    expect(await resendAndWait(agent, delivery)).toBe(202);
    expect(received.get(delivery.eventId)).toBe(7);
    await expectLedgerOk(server);
  }, 30_000);

  test("parallel resends of one delivery: each one that goes out is counted, none past the bound", async () => {
    const { agent, failed } = await failingDeliveries(1);
    const { eventId } = failed[0]!;
    const replies = await Promise.all(Array.from({ length: 30 }, () => resend(agent, failed[0]!.id)));
    const sent = replies.filter((reply) => reply.status === 202).length;
    // More than one only if a resend's delivery failed again while the others were still arriving.
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(5);
    expect(replies.every((reply) => [202, 409, 429].includes(reply.status))).toBe(true);
    await waitFor(async () => ((received.get(eventId) ?? 0) >= 1 + sent ? true : undefined));
    await Bun.sleep(300);
    expect(received.get(eventId)).toBe(1 + sent);
  }, 30_000);

  test("60 resends per agent an hour, across its events, however parallel; past them 429 and nothing sent", async () => {
    const { agent, failed } = await failingDeliveries(65);
    const replies = await Promise.all(failed.map((delivery) => resend(agent, delivery.id)));
    expect(replies.filter((reply) => reply.status === 202).length).toBe(60);
    const refused = replies.filter((reply) => reply.status !== 202);
    expect(refused.map((reply) => reply.status)).toEqual([429, 429, 429, 429, 429]);
    for (const reply of refused) expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
    const expected = failed.map((delivery, i) => [delivery.eventId, replies[i]!.status === 202 ? 2 : 1]);
    await waitFor(async () => (expected.every(([eventId, count]) => received.get(eventId as string) === count) ? true : undefined));
    await Bun.sleep(300);
    expect(failed.map((delivery) => [delivery.eventId, received.get(delivery.eventId)])).toEqual(expected);
  }, 60_000);
});
