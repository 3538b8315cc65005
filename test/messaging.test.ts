import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const send = (from: Agent, body: Record<string, unknown>) => server.request("POST", "/messages", { key: from.apiKey, body });
const unread = async (agent: Agent) => (await server.request("GET", "/messages/unread-count", { key: agent.apiKey })).body.unreadCount;

describe("messages", () => {
  test("send, inbox, read, unread count", async () => {
    const a = await server.register();
    const b = await server.register();
    const sent = await send(a, { recipientId: b.id, subject: "hello", body: "can you fetch data?", metadata: { job: 1 } });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ senderId: a.id, recipientId: b.id, subject: "hello", body: "can you fetch data?", metadata: { job: 1 }, type: "direct", read: false });

    expect(await unread(b)).toBe(1);
    expect(await unread(a)).toBe(0);
    const inbox = (await server.request("GET", "/messages/inbox", { key: b.apiKey })).body;
    expect(inbox.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false, nextAfter: null });
    expect(inbox.data[0].id).toBe(sent.body.id);
    // The sender's inbox does not list what it sent.
    expect((await server.request("GET", "/messages/inbox", { key: a.apiKey })).body.pagination.total).toBe(0);

    const read = await server.request("POST", `/messages/${sent.body.id}/read`, { key: b.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.read).toBe(true);
    expect(await unread(b)).toBe(0);
    expect((await server.request("POST", `/messages/${sent.body.id}/read`, { key: b.apiKey })).status).toBe(200);
    expect(await unread(b)).toBe(0);

    for (const agent of [a, b]) expect((await server.request("GET", `/messages/${sent.body.id}`, { key: agent.apiKey })).body.id).toBe(sent.body.id);
  });

  test("another agent can neither read nor mark a message (404); the sender cannot mark it", async () => {
    const [a, b, c] = [await server.register(), await server.register(), await server.register()];
    const sent = (await send(a, { recipientId: b.id, subject: "s", body: "b" })).body;
    expect((await server.request("GET", `/messages/${sent.id}`, { key: c.apiKey })).status).toBe(404);
    expect((await server.request("POST", `/messages/${sent.id}/read`, { key: c.apiKey })).status).toBe(404);
    expect((await server.request("POST", `/messages/${sent.id}/read`, { key: a.apiKey })).status).toBe(404);
    expect(await unread(b)).toBe(1);
    expect((await server.request("GET", `/messages/${crypto.randomUUID()}`, { key: b.apiKey })).status).toBe(404);
    expect((await server.request("GET", "/messages/not-a-uuid", { key: b.apiKey })).status).toBe(400);
  });

  test("the 21st message in an hour to the same agent is 429 with Retry-After; another pair is unaffected", async () => {
    const [a, b, c] = [await server.register(), await server.register(), await server.register()];
    for (let i = 0; i < 20; i++) expect((await send(a, { recipientId: b.id, subject: `m${i}`, body: "x" })).status).toBe(201);
    const over = await send(a, { recipientId: b.id, subject: "m21", body: "x" });
    expect(over.status).toBe(429);
    expect(over.body.error).toBe("PAIR_LIMIT_EXCEEDED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(3500);
    expect((await send(a, { recipientId: c.id, subject: "other", body: "x" })).status).toBe(201);
    expect((await send(b, { recipientId: a.id, subject: "reply", body: "x" })).status).toBe(201);
    expect((await server.request("GET", "/messages/inbox", { key: b.apiKey })).body.pagination.total).toBe(20);
    await server.advance(3601);
    expect((await send(a, { recipientId: b.id, subject: "next hour", body: "x" })).status).toBe(201);
  });

  test("events land in the inbox as system messages; filters by type and unreadOnly", async () => {
    const [a, b] = [await server.register(), await server.register()];
    await server.deposit(a.id, 10);
    await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 2, currency: "USDC", reason: "thanks" } });
    await send(a, { recipientId: b.id, subject: "direct", body: "x" });
    const all = (await server.request("GET", "/messages/inbox", { key: b.apiKey })).body;
    expect(all.data.map((m: { type: string }) => m.type)).toEqual(["direct", "payment.received"]);
    const payment = all.data[1];
    expect(payment).toMatchObject({ senderId: null, type: "payment.received", read: false });
    expect(payment.metadata).toMatchObject({ fromAgentId: a.id, amount: 2, currency: "USDC", reason: "thanks" });
    const onlyPayments = (await server.request("GET", "/messages/inbox?type=payment.received", { key: b.apiKey })).body;
    expect(onlyPayments.pagination.total).toBe(1);
    await server.request("POST", `/messages/${payment.id}/read`, { key: b.apiKey });
    const unreadOnly = (await server.request("GET", "/messages/inbox?unreadOnly=true", { key: b.apiKey })).body;
    expect(unreadOnly.data.map((m: { type: string }) => m.type)).toEqual(["direct"]);
    const deposits = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: a.apiKey })).body;
    expect(deposits.data[0].metadata).toMatchObject({ kind: "deposit.credited", amount: 10, currency: "USDC" });
    await expectLedgerOk(server);
  });

  test("totals and the unread count (kept per type, not counted) agree with the inbox through sends, events and reads, also concurrent ones", async () => {
    const [a, b] = [await server.register(), await server.register()];
    await server.deposit(a.id, 10);
    for (let i = 0; i < 3; i++) {
      await send(a, { recipientId: b.id, subject: `d${i}`, body: "x" });
      await server.request("POST", "/payments/send", { key: a.apiKey, body: { toAgentId: b.id, amount: 1, currency: "USDC" } });
    }
    /** What the inbox holds for a filter, item by item, beside the total it reports. */
    const check = async () => {
      for (const filter of ["", "unreadOnly=true", "type=direct", "type=payment.received", "type=direct&unreadOnly=true", "type=none"]) {
        const page = (await server.request("GET", `/messages/inbox?limit=100&${filter}`, { key: b.apiKey })).body;
        expect(page.pagination.total, filter).toBe(page.data.length);
        expect(page.pagination.hasMore).toBe(false);
        if (filter === "unreadOnly=true") expect(await unread(b)).toBe(page.data.length);
      }
    };
    await check();
    const inbox = (await server.request("GET", "/messages/inbox?limit=100", { key: b.apiKey })).body.data as { id: string; type: string }[];
    expect(inbox).toHaveLength(6);
    // The same message marked read by ten requests at once counts once.
    const first = inbox.find((m) => m.type === "direct")!;
    const marks = await Promise.all(Array.from({ length: 10 }, () => server.request("POST", `/messages/${first.id}/read`, { key: b.apiKey })));
    expect(marks.every((reply) => reply.status === 200)).toBe(true);
    expect(await unread(b)).toBe(5);
    await server.request("POST", `/messages/${inbox.find((m) => m.type === "payment.received")!.id}/read`, { key: b.apiKey });
    expect(await unread(b)).toBe(4);
    await check();
    // A stranger marking it is 404 and changes no count.
    expect((await server.request("POST", `/messages/${inbox[5]!.id}/read`, { key: a.apiKey })).status).toBe(404);
    expect(await unread(b)).toBe(4);
    await check();
  });

  const bad: [string, (to: string) => unknown][] = [
    ["missing recipient", () => ({ subject: "s", body: "b" })],
    ["recipient not a UUID", () => ({ recipientId: "x", subject: "s", body: "b" })],
    ["missing subject", (to) => ({ recipientId: to, body: "b" })],
    ["empty body", (to) => ({ recipientId: to, subject: "s", body: "" })],
    ["subject too long", (to) => ({ recipientId: to, subject: "s".repeat(201), body: "b" })],
    ["body too long", (to) => ({ recipientId: to, subject: "s", body: "b".repeat(10_001) })],
    ["metadata not an object", (to) => ({ recipientId: to, subject: "s", body: "b", metadata: "x" })],
    ["unknown field", (to) => ({ recipientId: to, subject: "s", body: "b", priority: 1 })],
  ];
  test.each(bad)("%s → 400 and nothing sent", async (_, body) => {
    const [a, b] = [await server.register(), await server.register()];
    const reply = await send(a, body(b.id) as Record<string, unknown>);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
    expect(await unread(b)).toBe(0);
  });

  test("self 400, unknown recipient 404, bad paging 400", async () => {
    const a = await server.register();
    expect((await send(a, { recipientId: a.id, subject: "s", body: "b" })).status).toBe(400);
    expect((await send(a, { recipientId: crypto.randomUUID(), subject: "s", body: "b" })).status).toBe(404);
    for (const query of ["limit=0", "limit=101", "offset=-1", "unreadOnly=maybe"]) {
      expect((await server.request("GET", `/messages/inbox?${query}`, { key: a.apiKey })).status).toBe(400);
    }
  });
});
