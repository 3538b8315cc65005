import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MINUTE_MS } from "../src/time";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let provider: Agent;
beforeAll(async () => {
  server = await startServer();
  provider = await server.register();
});
afterAll(() => server.close());

const list = (agent: Agent, body: Record<string, unknown>) =>
  server.request("POST", "/services", { key: agent.apiKey, body: { name: "Room", description: "", category: "lodging", price: 10, currency: "USDC", pricingUnit: "FIXED", ...body } });
const quote = (agent: Agent, body: Record<string, unknown>) => server.request("POST", "/quotes", { key: agent.apiKey, body });
const book = (agent: Agent, body: Record<string, unknown>) => server.request("POST", "/bookings", { key: agent.apiKey, body });

describe("pricing units", () => {
  test.each([
    ["FIXED", 25, {}, 25, "25 USDC = 25 USDC"],
    ["PER_HOUR", 12.5, { hours: 3 }, 37.5, "12.5 USDC × 3 hours = 37.5 USDC"],
    ["PER_NIGHT", 80, { nights: 2 }, 160, "80 USDC × 2 nights = 160 USDC"],
    ["PER_GUEST", 0.333333, { guests: 3 }, 0.999999, "0.333333 USDC × 3 guests = 0.999999 USDC"],
    ["PER_GUEST_NIGHT", 7.25, { guests: 2, nights: 3 }, 43.5, "7.25 USDC × 2 guests × 3 nights = 43.5 USDC"],
  ] as const)("%s", async (pricingUnit, price, units, amount, formula) => {
    const buyer = await server.register();
    const service = (await list(provider, { pricingUnit, price })).body;
    const reply = await quote(buyer, { serviceId: service.id, ...units });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ serviceId: service.id, providerId: provider.id, agentId: buyer.id, amount, currency: "USDC" });
    expect(reply.body.id).toMatch(/^qt_/);
    expect(reply.body.breakdown).toMatchObject({ unitPrice: price, pricingUnit, units, amount, formula });
    expect(Date.parse(reply.body.expiresAt) - Date.parse(reply.body.createdAt)).toBe(15 * MINUTE_MS);
  });

  test("missing or foreign units and bad counts are 400", async () => {
    const buyer = await server.register();
    const night = (await list(provider, { pricingUnit: "PER_GUEST_NIGHT" })).body;
    const fixed = (await list(provider, { pricingUnit: "FIXED" })).body;
    for (const body of [{ guests: 2 }, { nights: 2 }, { guests: 2, nights: 0 }, { guests: 1001, nights: 1 }, { guests: 2, nights: 1.5 }, { guests: "2", nights: 1 }, { guests: 2, nights: 2, hours: 1 }]) {
      expect((await quote(buyer, { serviceId: night.id, ...body })).status).toBe(400);
    }
    expect((await quote(buyer, { serviceId: fixed.id, nights: 1 })).status).toBe(400);
    expect((await quote(buyer, { serviceId: fixed.id, currency: "EUR" })).status).toBe(400);
    expect((await quote(buyer, { serviceId: fixed.id, currency: "USDC" })).status).toBe(200);
    expect((await quote(buyer, { serviceId: "svc_unknown" })).status).toBe(404);
    expect((await quote(provider, { serviceId: fixed.id })).status).toBe(400);
  });
});

describe("discover", () => {
  test("filters by category, currency and price bounds, pages with total and hasMore; public", async () => {
    const seller = await server.register();
    const category = `cat-${crypto.randomUUID().slice(0, 8)}`;
    for (const [price, currency] of [[5, "USD"], [10, "USD"], [15, "USD"], [20, "EUR"], [0.015, "USDC"]] as const) {
      expect((await list(seller, { category, price, currency })).status).toBe(201);
    }
    const get = async (query: string) => (await server.request("GET", `/services/discover?category=${category}&${query}`)).body;
    expect((await get("")).pagination).toEqual({ total: 5, limit: 20, offset: 0, hasMore: false, nextAfter: null });
    expect((await get("currency=USD")).data.map((s: { price: number }) => s.price)).toEqual([15, 10, 5]);
    expect((await get("currency=USD&minPrice=10")).data.map((s: { price: number }) => s.price)).toEqual([15, 10]);
    expect((await get("currency=USD&minPrice=10&maxPrice=14.99")).data.map((s: { price: number }) => s.price)).toEqual([10]);
    expect((await get("minPrice=12")).data.map((s: { price: number }) => s.price)).toEqual([20, 15]);
    expect((await get("maxPrice=0.015")).data.map((s: { price: number }) => s.price)).toEqual([0.015]);
    const first = await get("limit=2");
    expect(first.pagination).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true, nextAfter: expect.any(String) });
    const last = await get("limit=2&offset=4");
    expect(last.pagination).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false, nextAfter: null });
    expect(last.data).toHaveLength(1);
    for (const query of ["limit=0", "limit=101", "minPrice=-1", "currency=DOGE", "minPrice=abc"]) {
      expect((await server.request("GET", `/services/discover?${query}`)).status).toBe(400);
    }
  });

  test("a deactivated listing leaves discover and cannot be quoted; only its provider can change it", async () => {
    const seller = await server.register();
    const buyer = await server.register();
    const category = `gone-${crypto.randomUUID().slice(0, 8)}`;
    const service = (await list(seller, { category })).body;
    expect((await server.request("DELETE", `/services/${service.id}`, { key: buyer.apiKey })).status).toBe(404);
    expect((await server.request("PATCH", `/services/${service.id}`, { key: buyer.apiKey, body: { price: 1 } })).status).toBe(404);
    const patched = await server.request("PATCH", `/services/${service.id}`, { key: seller.apiKey, body: { price: 12, name: "Suite" } });
    expect(patched.body).toMatchObject({ price: 12, name: "Suite", active: true });
    expect((await server.request("PATCH", `/services/${service.id}`, { key: seller.apiKey, body: {} })).status).toBe(400);
    const removed = await server.request("DELETE", `/services/${service.id}`, { key: seller.apiKey });
    expect(removed.body.active).toBe(false);
    expect((await server.request("GET", `/services/discover?category=${category}`)).body.pagination.total).toBe(0);
    expect((await server.request("GET", `/services/${service.id}`)).body.active).toBe(false);
    const refused = await quote(buyer, { serviceId: service.id });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("INVALID_STATE");
    expect((await server.request("GET", "/services/svc_nope")).status).toBe(404);
  });
});

describe("a listing sold over x402 too", () => {
  test("names its x402 URL, which discover shows; it can be changed and cleared; anything but an http(s) URL is 400 and changes nothing", async () => {
    const seller = await server.register();
    const url = "https://seller.example.com/translate";
    const listed = await list(seller, { category: "x402-sold", x402Url: url });
    expect([listed.status, listed.body.x402Url]).toEqual([201, url]);
    const found = (await server.request("GET", "/services/discover?category=x402-sold")).body.data;
    expect(found.map((service: { x402Url: string | null }) => service.x402Url)).toEqual([url]);
    expect((await list(seller, { category: "x402-plain" })).body.x402Url).toBeNull();

    for (const bad of ["ftp://seller.example.com/x", "javascript:alert(1)", "not a url", 42, `https://x.example/${"a".repeat(2000)}`]) {
      expect((await list(seller, { x402Url: bad })).status, String(bad).slice(0, 40)).toBe(400);
      expect((await server.request("PATCH", `/services/${listed.body.id}`, { key: seller.apiKey, body: { x402Url: bad } })).status).toBe(400);
    }
    expect((await server.request("GET", `/services/${listed.body.id}`)).body.x402Url).toBe(url);
    const moved = await server.request("PATCH", `/services/${listed.body.id}`, { key: seller.apiKey, body: { x402Url: "http://127.0.0.1:8080/paid" } });
    expect([moved.status, moved.body.x402Url]).toEqual([200, "http://127.0.0.1:8080/paid"]);
    const cleared = await server.request("PATCH", `/services/${listed.body.id}`, { key: seller.apiKey, body: { x402Url: null } });
    expect([cleared.status, cleared.body.x402Url]).toEqual([200, null]);
  });
});

describe("bookings", () => {
  test("a booking pays the provider exactly, once per quote", async () => {
    const seller = await server.register();
    const buyer = await server.register();
    await server.deposit(buyer.id, 100);
    const service = (await list(seller, { pricingUnit: "PER_NIGHT", price: 30 })).body;
    const q = (await quote(buyer, { serviceId: service.id, nights: 2 })).body;
    const booking = await book(buyer, { quoteId: q.id });
    expect(booking.status).toBe(201);
    expect(booking.body).toMatchObject({ quoteId: q.id, serviceId: service.id, providerId: seller.id, agentId: buyer.id, amount: 60, currency: "USDC", rail: "INTERNAL", status: "CONFIRMED" });
    expect(booking.body.id).toMatch(/^bk_/);
    expect(await server.balance(buyer)).toEqual({ available: 40, held: 0 });
    expect(await server.balance(seller)).toEqual({ available: 60, held: 0 });
    const payment = await server.request("GET", `/payments/${booking.body.paymentId}`, { key: buyer.apiKey });
    expect(payment.body).toMatchObject({ amount: 60, kind: "BOOKING", fromAgentId: buyer.id, toAgentId: seller.id });
    expect((await server.request("GET", `/agents/${buyer.id}/reputation`)).body.score).toBe(1);
    const notice = (await server.request("GET", "/messages/inbox?type=notification.financial", { key: seller.apiKey })).body.data[0];
    expect(notice.metadata).toMatchObject({ kind: "booking.received", bookingId: booking.body.id, amount: 60 });

    const again = await book(buyer, { quoteId: q.id });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("INVALID_STATE");
    expect(await server.balance(buyer)).toEqual({ available: 40, held: 0 });

    for (const agent of [buyer, seller]) expect((await server.request("GET", `/bookings/${booking.body.id}`, { key: agent.apiKey })).status).toBe(200);
    const stranger = await server.register();
    expect((await server.request("GET", `/bookings/${booking.body.id}`, { key: stranger.apiKey })).status).toBe(404);
    expect((await book(stranger, { quoteId: q.id })).status).toBe(404);
    expect((await server.request("GET", "/bookings/mine?role=provider", { key: seller.apiKey })).body.pagination.total).toBe(1);
    expect((await server.request("GET", "/bookings/mine?role=buyer", { key: seller.apiKey })).body.pagination.total).toBe(0);
    expect((await server.request("GET", "/bookings/mine", { key: buyer.apiKey })).body.data[0].id).toBe(booking.body.id);
    await expectLedgerOk(server);
  });

  test("an expired quote is 409", async () => {
    const buyer = await server.register();
    await server.deposit(buyer.id, 50);
    const service = (await list(provider, {})).body;
    const q = (await quote(buyer, { serviceId: service.id })).body;
    await server.advance(901);
    const reply = await book(buyer, { quoteId: q.id });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toBe("INVALID_STATE");
    expect(await server.balance(buyer)).toEqual({ available: 50, held: 0 });
  });

  test("too little money is 400 and nothing changes; the quote stays bookable", async () => {
    const buyer = await server.register();
    await server.deposit(buyer.id, 5);
    const service = (await list(provider, { price: 10 })).body;
    const q = (await quote(buyer, { serviceId: service.id })).body;
    const poor = await book(buyer, { quoteId: q.id });
    expect(poor.status).toBe(400);
    expect(poor.body.error).toBe("INSUFFICIENT_BALANCE");
    expect(await server.balance(buyer)).toEqual({ available: 5, held: 0 });
    expect((await server.request("GET", "/bookings/mine", { key: buyer.apiKey })).body.pagination.total).toBe(0);
    await server.deposit(buyer.id, 5);
    expect((await book(buyer, { quoteId: q.id })).status).toBe(201);
    await expectLedgerOk(server);
  });

  test("the provider cannot book its own service; other rails are 400; a block is 403", async () => {
    const seller = await server.register();
    const buyer = await server.register();
    await server.deposit(buyer.id, 50);
    const service = (await list(seller, {})).body;
    expect((await quote(seller, { serviceId: service.id })).status).toBe(400);
    const q = (await quote(buyer, { serviceId: service.id })).body;
    const rail = await book(buyer, { quoteId: q.id, rail: "SEPA" });
    expect(rail.status).toBe(400);
    expect(rail.body.message).toContain("INTERNAL");
    await server.request("POST", "/agents/me/block", { key: seller.apiKey, body: { agentId: buyer.id } });
    expect((await book(buyer, { quoteId: q.id })).status).toBe(403);
    expect((await quote(buyer, { serviceId: service.id })).status).toBe(403);
    expect(await server.balance(buyer)).toEqual({ available: 50, held: 0 });
  });

  const badListings: [string, Record<string, unknown>][] = [
    ["missing name", { name: undefined }],
    ["price with 3 decimals in USD", { price: 1.005, currency: "USD" }],
    ["zero price", { price: 0 }],
    ["unknown pricing unit", { pricingUnit: "PER_DAY" }],
    ["unknown currency", { currency: "GBP" }],
    ["unknown field", { color: "red" }],
    ["category too long", { category: "c".repeat(51) }],
  ];
  test.each(badListings)("listing with %s → 400", async (_, body) => {
    const reply = await list(provider, body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe("VALIDATION_ERROR");
  });

  test("bad booking bodies → 400", async () => {
    const buyer = await server.register();
    for (const body of [{}, { quoteId: "" }, { quoteId: 5 }, { quoteId: "qt_x", extra: 1 }]) expect((await book(buyer, body)).status).toBe(400);
    expect((await book(buyer, { quoteId: "qt_unknown" })).status).toBe(404);
  });
});
