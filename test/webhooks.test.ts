import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../src/time";
import { Webhook } from "standardwebhooks";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

type Received = { headers: Headers; body: string; at: number };

/** A real receiver: records every POST; /slow hangs 10 s; /fail answers 500. */
function startReceiver() {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 30,
    async fetch(request) {
      const body = await request.text();
      received.push({ headers: request.headers, body, at: Date.now() });
      const path = new URL(request.url).pathname;
      if (path === "/slow") await Bun.sleep(10_000);
      if (path === "/fail") return new Response("nope", { status: 500 });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}

let server: TestServer;
let receiver: ReturnType<typeof startReceiver>;
beforeAll(async () => {
  server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  receiver = startReceiver();
});
afterAll(async () => {
  receiver.stop();
  await server.close();
});

async function withWebhook(path: string): Promise<{ agent: Agent; secret: string }> {
  const agent = await server.register();
  const reply = await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: `${receiver.url}${path}` } });
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ agentId: agent.id, webhookUrl: `${receiver.url}${path}` });
  expect(reply.body.secret).toMatch(/^whsec_/);
  return { agent, secret: reply.body.secret };
}

const deliveries = async (agent: Agent) => (await server.request("GET", "/agents/me/webhook/deliveries", { key: agent.apiKey })).body;

describe("webhook delivery", () => {
  test("payment.received arrives with the SPEC payload and a signature standardwebhooks verifies", async () => {
    const { agent: payee, secret } = await withWebhook("/hook-a");
    const payer = await server.register();
    await server.deposit(payer.id, 10);
    const payment = (await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 3.5, currency: "USDC", reason: "job" } })).body;

    const delivery = await waitFor(() => receiver.received.find((r) => r.body.includes(payment.id)));
    const payload = JSON.parse(delivery.body);
    expect(payload).toEqual({
      event: "payment.received",
      agentId: payee.id,
      data: { paymentId: payment.id, fromAgentId: payer.id, amount: 3.5, currency: "USDC", reason: "job" },
      timestamp: expect.any(String),
    });
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(delivery.headers.get("content-type")).toContain("application/json");
    const headers = Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, delivery.headers.get(name)!]));
    expect(headers["webhook-id"]).toMatch(/^evt_/);
    expect(new Webhook(secret).verify(delivery.body, headers)).toEqual(payload);
    expect(() => new Webhook(secret).verify(`${delivery.body} `, headers)).toThrow();

    const recorded = await waitFor(async () => {
      const list = await deliveries(payee);
      return list.pagination.total > 0 ? list : undefined;
    });
    expect(recorded.data[0]).toMatchObject({ eventId: headers["webhook-id"], event: "payment.received", outcome: "DELIVERED", httpStatus: 200 });
    await expectLedgerOk(server);
  });

  test("message.received carries messageId, senderId, subject, body", async () => {
    const { agent: recipient } = await withWebhook("/hook-m");
    const sender = await server.register();
    const message = (await server.request("POST", "/messages", { key: sender.apiKey, body: { recipientId: recipient.id, subject: "ping", body: "pong" } })).body;
    const delivery = await waitFor(() => receiver.received.find((r) => r.body.includes(message.id)));
    expect(JSON.parse(delivery.body).data).toEqual({ messageId: message.id, senderId: sender.id, subject: "ping", body: "pong" });
  });

  test("a receiver that hangs does not slow the sender, and is recorded as a timeout after about 5 s", async () => {
    const { agent: payee } = await withWebhook("/slow");
    const payer = await server.register();
    await server.deposit(payer.id, 10);
    const started = performance.now();
    const reply = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC" } });
    expect(reply.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(1000);
    const recorded = await waitFor(async () => {
      const list = await deliveries(payee);
      return list.pagination.total > 0 ? list.data[0] : undefined;
    }, 9000);
    expect(recorded.outcome).toBe("TIMEOUT");
    expect(recorded.durationMs).toBeGreaterThanOrEqual(4900);
    expect(recorded.durationMs).toBeLessThan(7000);
  }, 15_000);

  test("a receiver that is down loses nothing: the inbox has the event and the failure is recorded", async () => {
    const agent = await server.register();
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const deadUrl = `http://127.0.0.1:${dead.port}/gone`;
    dead.stop(true);
    await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: deadUrl } });
    await server.deposit(agent.id, 4);
    const recorded = await waitFor(async () => {
      const list = await deliveries(agent);
      return list.pagination.total > 0 ? list.data[0] : undefined;
    });
    expect(recorded.outcome).toBe("FAILED");
    const inbox = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: agent.apiKey })).body;
    expect(inbox.data[0].metadata).toMatchObject({ kind: "deposit.credited", amount: 4 });
  });

  test("an error status is recorded as FAILED with the status", async () => {
    const { agent } = await withWebhook("/fail");
    await server.deposit(agent.id, 1);
    const recorded = await waitFor(async () => {
      const list = await deliveries(agent);
      return list.pagination.total > 0 ? list.data[0] : undefined;
    });
    expect(recorded).toMatchObject({ outcome: "FAILED", httpStatus: 500 });
  });

  test("null disables delivery; the secret stays the same when a URL is set again", async () => {
    const { agent, secret } = await withWebhook("/hook-null");
    const off = await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: null } });
    expect(off.body).toEqual({ agentId: agent.id, webhookUrl: null });
    const before = receiver.received.length;
    await server.deposit(agent.id, 2);
    await Bun.sleep(300);
    expect(receiver.received.slice(before).filter((r) => r.body.includes(agent.id))).toHaveLength(0);
    expect((await deliveries(agent)).pagination.total).toBe(0);
    expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).body.webhookUrl).toBeNull();
    const on = await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: `${receiver.url}/hook-null` } });
    expect(on.body.secret).toBe(secret);
  });

  test("webhook-timestamp is wall-clock time: after the test clock moves a day, the standard library still verifies", async () => {
    const { agent: payee, secret } = await withWebhook("/hook-clock");
    const payer = await server.register();
    await server.deposit(payer.id, 10);
    await server.advance(86_400);
    const payment = (await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC" } })).body;
    const delivery = await waitFor(() => receiver.received.find((r) => r.body.includes(payment.id)));
    const headers = Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, delivery.headers.get(name)!]));
    expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(new Webhook(secret).verify(delivery.body, headers)).toMatchObject({ event: "payment.received" });
    // The payload's own timestamp follows the service clock.
    expect(Date.parse(JSON.parse(delivery.body).timestamp)).toBeGreaterThan(Date.now() + 86_000_000);
  });

  test("bad webhook URLs are 400", async () => {
    const agent = await server.register();
    for (const webhookUrl of ["not a url", "ftp://example.com/x", 42, "http://user:pass@example.com/"]) {
      const reply = await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl } });
      expect(reply.status).toBe(400);
    }
    expect((await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: {} })).status).toBe(400);
  });
});

describe("SSRF guard", () => {
  test("loopback, private and metadata targets are refused without WEBHOOK_ALLOW_PRIVATE_NETWORKS", async () => {
    const strict = await startServer();
    try {
      const agent = await strict.register();
      const ipv6Forms = ["http://[::ffff:127.0.0.1]/", "http://[::ffff:169.254.169.254]/", "http://[::127.0.0.1]/", "http://[::7f00:1]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://[fec0::1]/", "http://[fe80::1]/", "http://[fd00::1]/", "http://[::]/"];
      const ipv4Forms = ["http://127.0.0.1:9/x", "http://localhost/x", "http://10.0.0.1/x", "http://169.254.169.254/latest", "http://[::1]/x", "http://192.168.1.1/", "http://100.64.0.1/", "http://0.0.0.0/", "http://2130706433/", "http://0x7f.1/"];
      for (const webhookUrl of [...ipv4Forms, ...ipv6Forms]) {
        const reply = await strict.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl } });
        expect({ webhookUrl, status: reply.status }).toEqual({ webhookUrl, status: 400 });
        expect(reply.body.error).toBe("VALIDATION_ERROR");
      }
      const registration = await strict.request("POST", "/agents/register", {
        body: { name: "x", ownerName: "o", ownerEmail: "o@example.com", webhookUrl: "http://127.0.0.1:8080/hook" },
      });
      expect(registration.status).toBe(400);
      // Bet oracles go through the same guard, when the bet is made.
      await strict.deposit(agent.id, 10);
      const resolveAt = new Date(Date.now() + DAY_MS).toISOString();
      for (const url of ["http://127.0.0.1:9/price", "http://[::ffff:10.0.0.1]/price", "http://localhost/price"]) {
        const bet = await strict.request("POST", "/betting", {
          key: agent.apiKey,
          body: { description: "d", condition: "c", amount: 1, currency: "USDC", oracleType: "API", oracle: { url, jsonPath: "$.p", operator: "gt", value: 1, resolveAt } },
        });
        expect([url, bet.status, bet.body.message]).toEqual([url, 400, expect.stringContaining("oracle.url")]);
      }
      expect(await strict.balance(agent)).toEqual({ available: 10, held: 0 });
    } finally {
      await strict.close();
    }
  });
});

describe("by hand: a new signing secret, a failed delivery sent again", () => {
  test("rotating the secret: shown once, signs every delivery from then on; without a URL it is 409", async () => {
    const bare = await server.register();
    expect((await server.request("POST", "/agents/me/webhook/secret", { key: bare.apiKey })).status).toBe(409);
    const { agent, secret } = await withWebhook("/rotated");
    const rotated = await server.request("POST", "/agents/me/webhook/secret", { key: agent.apiKey });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const payer = await server.register();
    await server.deposit(payer.id, 1);
    await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: agent.id, amount: 1, currency: "USDC" } });
    const delivery = await waitFor(() => receiver.received.find((r) => r.body.includes(agent.id) && r.body.includes("payment.received")));
    const headers = Object.fromEntries(delivery.headers);
    expect(new Webhook(rotated.body.secret).verify(delivery.body, headers)).toMatchObject({ event: "payment.received" });
    expect(() => new Webhook(secret).verify(delivery.body, headers)).toThrow();
  });

  test("a failed delivery is sent again once when asked (same webhook-id); a delivered one, or another agent's, is not", async () => {
    const { agent } = await withWebhook("/fail");
    const payer = await server.register();
    await server.deposit(payer.id, 1);
    await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: agent.id, amount: 1, currency: "USDC" } });
    const failed = await waitFor(async () => (await deliveries(agent)).data[0]);
    expect(failed.outcome).toBe("FAILED");
    await server.request("PUT", "/agents/me/webhook", { key: agent.apiKey, body: { webhookUrl: `${receiver.url}/fixed` } });
    expect((await server.request("POST", `/agents/me/webhook/deliveries/${failed.id}/resend`, { key: payer.apiKey })).status).toBe(404);
    const resent = await server.request("POST", `/agents/me/webhook/deliveries/${failed.id}/resend`, { key: agent.apiKey });
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ eventId: failed.eventId, status: "PENDING" });
    const delivered = await waitFor(async () => ((await deliveries(agent)).data as any[]).find((d) => d.outcome === "DELIVERED"));
    expect(delivered).toMatchObject({ eventId: failed.eventId, url: `${receiver.url}/fixed` });
    expect(receiver.received.filter((r) => r.headers.get("webhook-id") === failed.eventId).length).toBe(2);
    // Asking again: the event was delivered meanwhile.
    expect((await server.request("POST", `/agents/me/webhook/deliveries/${failed.id}/resend`, { key: agent.apiKey })).status).toBe(409);
    expect((await server.request("POST", `/agents/me/webhook/deliveries/${delivered.id}/resend`, { key: agent.apiKey })).status).toBe(409);
    await expectLedgerOk(server);
  });
});
