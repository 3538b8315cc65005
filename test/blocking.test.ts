import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe("blocking", () => {
  test("a blocked agent's payment and message are 403; unblocking restores them", async () => {
    const [a, b] = [await server.register(), await server.register()];
    await server.deposit(b.id, 10);
    const blocked = await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: b.id, reason: "spam" } });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ agentId: b.id, reason: "spam", blocked: true });

    const pay = await server.request("POST", "/payments/send", { key: b.apiKey, body: { toAgentId: a.id, amount: 1, currency: "USDC" } });
    expect(pay.status).toBe(403);
    expect(pay.body.error).toBe("FORBIDDEN");
    const message = await server.request("POST", "/messages", { key: b.apiKey, body: { recipientId: a.id, subject: "hi", body: "x" } });
    expect(message.status).toBe(403);
    expect(await server.balance(b)).toEqual({ available: 10, held: 0 });
    // Blocking is one-way: the blocker can still pay the blocked agent.
    await server.deposit(a.id, 5);
    expect((await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 1, currency: "USDC" } })).status).toBe(201);

    const list = (await server.request("GET", "/agents/me/blocks", { key: a.apiKey })).body;
    expect(list.pagination.total).toBe(1);
    expect(list.data[0]).toMatchObject({ agentId: b.id, reason: "spam" });

    expect((await server.request("DELETE", `/agents/me/block/${b.id}`, { key: a.apiKey })).status).toBe(200);
    expect((await server.request("POST", "/payments/send", { key: b.apiKey, body: { toAgentId: a.id, amount: 1, currency: "USDC" } })).status).toBe(201);
    expect((await server.request("POST", "/messages", { key: b.apiKey, body: { recipientId: a.id, subject: "hi", body: "x" } })).status).toBe(201);
    await expectLedgerOk(server);
  });

  test("blocking twice is 200 without change; unblocking someone not blocked is 404", async () => {
    const [a, b] = [await server.register(), await server.register()];
    const first = await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: b.id, reason: "one" } });
    const again = await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: b.id, reason: "two" } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await server.request("GET", "/agents/me/blocks", { key: a.apiKey })).body.pagination.total).toBe(1);
    expect((await server.request("DELETE", `/agents/me/block/${b.id}`, { key: a.apiKey })).status).toBe(200);
    const missing = await server.request("DELETE", `/agents/me/block/${b.id}`, { key: a.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("NOT_FOUND");
  });

  test("ten blocks of one pair at once: all 200 with the same block, one row", async () => {
    const [a, b] = [await server.register(), await server.register()];
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: b.id, reason: `reason ${i}` } })),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
    expect(new Set(replies.map((reply) => JSON.stringify(reply.body))).size).toBe(1);
    const list = (await server.request("GET", "/agents/me/blocks", { key: a.apiKey })).body;
    expect(list.pagination.total).toBe(1);
    expect(list.data).toEqual([expect.objectContaining({ agentId: b.id, reason: replies[0]!.body.reason })]);
    expect((await server.request("DELETE", `/agents/me/block/${b.id}`, { key: a.apiKey })).status).toBe(200);
    expect((await server.request("GET", "/agents/me/blocks", { key: a.apiKey })).body.pagination.total).toBe(0);
  });

  test("bad input: self 400, unknown 404, reason over 200 400, bad ids 400", async () => {
    const [a, b] = [await server.register(), await server.register()];
    expect((await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: a.id } })).status).toBe(400);
    expect((await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: crypto.randomUUID() } })).status).toBe(404);
    expect((await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: b.id, reason: "r".repeat(201) } })).status).toBe(400);
    expect((await server.request("POST", "/agents/me/block", { key: a.apiKey, body: { agentId: "nope" } })).status).toBe(400);
    expect((await server.request("POST", "/agents/me/block", { key: a.apiKey, body: {} })).status).toBe(400);
    expect((await server.request("DELETE", "/agents/me/block/nope", { key: a.apiKey })).status).toBe(400);
    expect((await server.request("GET", "/agents/me/blocks", { key: a.apiKey })).body.pagination.total).toBe(0);
  });
});
