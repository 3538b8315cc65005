// What an attacker sends to the edges that take free-form input: deeply nested JSON, bodies without a
// Content-Length, other content types, oversized free-form fields, the same request in another key
// order. Each is a clear 4xx (or a replay) with no state change, and none of it stalls the service.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, TEST_POSTGRES, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let payer: Agent;
let payee: Agent;
beforeAll(async () => {
  server = await startServer();
  payer = await server.register();
  payee = await server.register();
  await server.deposit(payer.id, 100);
});
afterAll(() => server.close());

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const raw = (path: string, body: string | Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${payer.apiKey}`, "content-type": "application/json", ...headers }, body });
const payment = (metadata: string) => `{"toAgentId":"${payee.id}","amount":1,"currency":"USDC","metadata":${metadata}}`;

async function expectUnchanged(): Promise<void> {
  expect(await server.balance(payer)).toEqual({ available: 100, held: 0 });
  await expectLedgerOk(server);
}

describe("nesting", () => {
  test("metadata nested 50,000 deep is 400 at once, and 20 of them in flight do not hold up /health", async () => {
    const body = payment(nested(50_000));
    const requests = Array.from({ length: 20 }, () => raw("/payments/send", body));
    const started = performance.now();
    const health = await fetch(`${server.url}/health`);
    const healthMs = performance.now() - started;
    const replies = await Promise.all(requests);
    expect(health.status).toBe(200);
    // Before the bound, JSON.stringify of such bodies inside the writer held /health for 11 s.
    expect(healthMs).toBeLessThan(1_000);
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      expect(await reply.json()).toEqual({ error: "VALIDATION_ERROR", message: "the body nests objects or arrays deeper than 32 levels", requestId: reply.headers.get("request-id") });
    }
    await expectUnchanged();
  });

  test.each([
    ["registration", "/agents/register", () => `{"name":"x","ownerName":"o","ownerEmail":"o@x.io","capabilities":${"[".repeat(40_000)}${"]".repeat(40_000)}}`],
    ["negotiation offer", "/negotiations", () => `{"counterpartyId":"${payee.id}","subject":"s","offer":${nested(40_000)}}`],
    ["bet oracle", "/betting", () => `{"description":"d","condition":"c","amount":1,"currency":"USDC","oracleType":"API","oracle":${nested(40_000)}}`],
    ["unterminated", "/payments/send", () => "[".repeat(100_000)],
  ])("%s nested 40,000 deep is 400", async (_, path, body) => {
    const reply = await raw(path, body());
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as { error: string }).error).toBe("VALIDATION_ERROR");
    await expectUnchanged();
  });

  test("free-form fields have their own bounds: depth 10, 50 keys, 16 KiB", async () => {
    const deep = JSON.parse(nested(11));
    for (const metadata of [deep, Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])), { blob: "x".repeat(17_000) }, { ["k".repeat(101)]: 1 }, [1, 2]]) {
      const reply = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC", metadata } });
      expect(reply.status).toBe(400);
      expect(reply.body.message).toContain("metadata");
      expect(reply.body.message).toContain("nested at most 10 levels");
    }
    const fine = await server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC", metadata: JSON.parse(nested(10)) } });
    expect(fine.status).toBe(201);
    const refund = await server.request("POST", "/payments/send", { key: payee.apiKey, body: { toAgentId: payer.id, amount: 1, currency: "USDC" } });
    expect(refund.status).toBe(201);
  });
});

describe("bodies", () => {
  const stream = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        for (let offset = 0; offset < bytes.length; offset += 64 * 1024) controller.enqueue(bytes.subarray(offset, offset + 64 * 1024));
        controller.close();
      },
    });

  test("a chunked body (no Content-Length) over 1 MiB is 413; a small chunked body is served", async () => {
    const big = payment(JSON.stringify({ blob: "x".repeat(1_600_000) }));
    const reply = await raw("/payments/send", stream(big));
    expect(reply.status).toBe(413);
    expect(await reply.json()).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
    const small = await raw("/payments/send", stream(payment('{"via":"chunked"}')));
    expect(small.status).toBe(201);
    expect(((await small.json()) as { metadata: unknown }).metadata).toEqual({ via: "chunked" });
    const back = await server.request("POST", "/payments/send", { key: payee.apiKey, body: { toAgentId: payer.id, amount: 1, currency: "USDC" } });
    expect(back.status).toBe(201);
    await expectUnchanged();
  });

  test("a body over 1 MiB with Content-Length is 413 before it is read", async () => {
    const reply = await raw("/payments/send", payment(JSON.stringify({ blob: "x".repeat(1_100_000) })));
    expect(reply.status).toBe(413);
    await expectUnchanged();
  });

  test.each([
    ["text/plain"],
    ["application/x-www-form-urlencoded"],
    ["multipart/form-data; boundary=x"],
    ["application/xml"],
  ])("Content-Type %s is 400: the API takes JSON only", async (contentType) => {
    const reply = await raw("/payments/send", payment("{}"), { "content-type": contentType });
    expect(reply.status).toBe(400);
    expect(((await reply.json()) as { message: string }).message).toContain("application/json");
    await expectUnchanged();
  });

  test("malformed JSON and invalid UTF-8 are 400", async () => {
    expect((await raw("/payments/send", "{")).status).toBe(400);
    expect((await raw("/payments/send", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))).status).toBe(400);
    await expectUnchanged();
  });
});

describe("idempotency", () => {
  test("the same request with its fields in another order is a replay, not a conflict", async () => {
    const first = await server.request("POST", "/payments/send", {
      key: payer.apiKey,
      headers: { "idempotency-key": "order-1" },
      body: { toAgentId: payee.id, amount: 2, currency: "USDC", metadata: { a: 1, b: { c: 2, d: 3 } } },
    });
    const again = await raw("/payments/send", `{"metadata":{"b":{"d":3,"c":2},"a":1},"currency":"USDC","amount":2,"toAgentId":"${payee.id}"}`, { "idempotency-key": "order-1" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as { id: string }).id).toBe(first.body.id);
    const changed = await raw("/payments/send", `{"metadata":{"b":{"d":4,"c":2},"a":1},"currency":"USDC","amount":2,"toAgentId":"${payee.id}"}`, { "idempotency-key": "order-1" });
    expect(changed.status).toBe(409);
    expect(await server.balance(payer)).toEqual({ available: 98, held: 0 });
    await server.request("POST", "/payments/send", { key: payee.apiKey, body: { toAgentId: payer.id, amount: 2, currency: "USDC" } });
    await expectUnchanged();
  });
});

describe("at rest and at start", () => {
  test.skipIf(TEST_POSTGRES !== undefined)("the database and its -wal and -shm files are readable by the owner only (SQLite)", () => {
    for (const file of [server.databasePath, `${server.databasePath}-wal`, `${server.databasePath}-shm`]) {
      expect([file, statSync(file).mode & 0o777]).toEqual([file, 0o600]);
    }
  });

  test("a MASTER_MNEMONIC with a wrong checksum stops the start with one line", async () => {
    // "abandon" ×12 has a wrong checksum (the valid phrase ends in "about").
    const bad = startServer({ env: { MASTER_MNEMONIC: Array(12).fill("abandon").join(" ") } });
    const error = await bad.then(
      () => null,
      (failure: Error) => failure.message,
    );
    expect(error).toContain("MASTER_MNEMONIC: not a valid BIP-39 phrase");
    const good = await startServer({ env: { MASTER_MNEMONIC: `${Array(11).fill("abandon").join(" ")}  about` } });
    await good.close();
  });
});
