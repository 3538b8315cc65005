// The brakes in the owner console (issue 33), over plain HTTP: freeze the agent after a confirmation (a
// banner on every page while it is frozen, its outflows refused at the API), stop what it committed to from
// the Activity page — cancel a subscription, withdraw an open loan offer and an untaken bet, each after a
// confirmation that repeats the amount — while it is frozen, then unfreeze it. Another owner reaches none
// of it; the operator's freeze shows in the banner and cannot be lifted here.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { formsOf, getPage, postForm, signIn, type ConsolePage } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, type Agent, type TestServer } from "./helpers/server";

setDefaultTimeout(30_000);

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const USDC = "USDC";
const made = async (agent: Agent, method: string, path: string, body?: unknown) => {
  const reply = await server.request(method, path, { key: agent.apiKey, body });
  if (reply.status >= 300) throw new Error(`${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
};
const pay = (from: Agent, to: Agent) => server.request("POST", "/payments/send", { key: from.apiKey, body: { toAgentId: to.id, amount: 1, currency: USDC } });

/** Posts the page's form for `action` as the browser would (its fields, the CSRF token among them), with `extra` fields. */
async function submit(page: ConsolePage, action: string, cookie: string, extra: [string, string][] = []): Promise<ConsolePage> {
  const form = formsOf(page.html).find((candidate) => candidate.action === action);
  if (!form) throw new Error(`no form for ${action} on the page`);
  return postForm(server, action, [...form.fields, ...extra], cookie);
}

describe("the console's brakes", () => {
  test("freeze after a confirmation: banner on every page, outflows refused; stop a subscription, an offer and a bet while frozen; unfreeze", async () => {
    const a = await server.register();
    const b = await server.register();
    await server.deposit(a.id, 100);
    const subscription = await made(a, "POST", "/subscriptions", { recipientId: b.id, amount: 3, currency: USDC, frequency: "DAILY" });
    const offer = await made(a, "POST", "/lending/offers", { amount: 20, currency: USDC, interestRate: 5, durationDays: 30, collateralPercent: 0 });
    const bet = await made(a, "POST", "/betting", { description: "d", condition: "it rains on Sunday", amount: 7, currency: USDC });
    expect(await server.balance(a)).toEqual({ available: 70, held: 27 });
    const cookie = await signIn(server, a.ownerKey);

    const overview = await getPage(server, "/console", cookie);
    expect(overview.html).toContain('href="/console/freeze"');
    expect(overview.html).not.toContain('id="frozen-banner"');
    const confirm = await getPage(server, "/console/freeze", cookie);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain("subscriptions' charges pause");
    // A reason longer than the record keeps: refused, nothing changes.
    expect((await submit(confirm, "/console/freeze", cookie, [["reason", "x".repeat(501)]])).status).toBe(400);
    expect((await server.request("GET", "/agents/me", { key: a.apiKey })).body.frozen).toBe(false);
    const frozen = await submit(confirm, "/console/freeze", cookie, [["reason", "it paid a stranger"]]);
    expect(frozen.status).toBe(200);
    expect(frozen.html).toContain('id="brake-outcome"');
    expect(frozen.html).toContain("it paid a stranger");
    expect((await server.request("GET", "/agents/me", { key: a.apiKey })).body.frozen).toBe(true);
    expect((await pay(a, b)).body.error).toBe("AGENT_FROZEN");
    for (const path of ["/console", "/console/approvals", "/console/activity", "/console/policy", "/console/security"]) {
      const page = await getPage(server, path, cookie);
      expect({ path, banner: page.html.includes('id="frozen-banner"'), unfreeze: page.html.includes('href="/console/unfreeze"'), freeze: page.html.includes('href="/console/freeze"') }).toEqual({
        path,
        banner: true,
        unfreeze: true,
        freeze: false,
      });
    }

    // Activity: each item has its link; each confirmation repeats the amount; each post stops it.
    const activity = await getPage(server, "/console/activity", cookie);
    const items: [string, string, string][] = [
      [`/console/activity/subscription/${subscription.id}`, "three USDC", `/subscriptions/${subscription.id}`],
      [`/console/activity/offer/${offer.id}`, "twenty USDC", "/lending/my-loans"],
      [`/console/activity/bet/${bet.id}`, "seven USDC", `/betting/${bet.id}`],
    ];
    for (const [path, words] of items) {
      expect(activity.html).toContain(`href="${path}"`);
      const page = await getPage(server, path, cookie);
      expect(page.status).toBe(200);
      expect(page.html).toContain(words);
      const stopped = await submit(page, path, cookie);
      expect({ path, status: stopped.status, location: stopped.headers.get("location") }).toEqual({ path, status: 303, location: "/console/activity" });
      // Stopped already: the confirmation and the form answer 409 on the page.
      expect((await getPage(server, path, cookie)).status).toBe(409);
      expect((await submit(page, path, cookie)).status).toBe(409);
    }
    expect((await server.request("GET", `/subscriptions/${subscription.id}`, { key: a.apiKey })).body).toMatchObject({ status: "CANCELLED", cancelReason: "cancelled by the payer" });
    expect((await server.request("GET", `/betting/${bet.id}`, { key: a.apiKey })).body.status).toBe("CANCELLED");
    expect(await server.balance(a)).toEqual({ available: 97, held: 0 });
    const after = await getPage(server, "/console/activity", cookie);
    for (const [path] of items) expect(after.html).not.toContain(`href="${path}"`);

    const unfreezing = await getPage(server, "/console/unfreeze", cookie);
    const unfrozen = await submit(unfreezing, "/console/unfreeze", cookie);
    expect(unfrozen.status).toBe(200);
    expect(unfrozen.html).not.toContain('id="frozen-banner"');
    expect(unfrozen.html).toContain('href="/console/freeze"');
    expect((await pay(a, b)).status).toBe(201);
    await expectLedgerOk(server);
  });

  test("another owner reaches none of it; the operator's freeze shows in the banner and is not lifted by the owner's unfreeze", async () => {
    const a = await server.register();
    const other = await server.register();
    await server.deposit(a.id, 50);
    const offer = await made(a, "POST", "/lending/offers", { amount: 20, currency: USDC, interestRate: 5, durationDays: 30, collateralPercent: 0 });
    const bet = await made(a, "POST", "/betting", { description: "d", condition: "c", amount: 5, currency: USDC });
    const otherCookie = await signIn(server, other.ownerKey);
    const ownPage = await getPage(server, "/console/activity", await signIn(server, a.ownerKey));
    for (const path of [`/console/activity/offer/${offer.id}`, `/console/activity/bet/${bet.id}`, `/console/activity/subscription/${crypto.randomUUID()}`]) {
      expect((await getPage(server, path, otherCookie)).status).toBe(404);
      // The other owner's session with the form a's page would post: still 404, nothing withdrawn.
      const form = formsOf(ownPage.html).find((candidate) => candidate.action === path) ?? { fields: [] };
      const csrf = formsOf((await getPage(server, "/console", otherCookie)).html)[0]!.fields.find(([name]) => name === "csrf")!;
      expect((await postForm(server, path, [...form.fields.filter(([name]) => name !== "csrf"), csrf], otherCookie)).status).toBe(404);
    }
    expect(await server.balance(a)).toEqual({ available: 25, held: 25 });

    expect((await server.request("POST", `/admin/agents/${a.id}/freeze`, { key: ADMIN_KEY, body: { reason: "under review" } })).status).toBe(200);
    const cookie = await signIn(server, a.ownerKey);
    const page = await getPage(server, "/console", cookie);
    expect(page.html).toContain('id="frozen-banner"');
    expect(page.html).toContain("by the operator");
    expect(page.html).not.toContain('href="/console/unfreeze"');
    // The owner may freeze too; lifting the owner's freeze leaves the operator's.
    await submit(await getPage(server, "/console/freeze", cookie), "/console/freeze", cookie);
    const unfrozen = await submit(await getPage(server, "/console/unfreeze", cookie), "/console/unfreeze", cookie);
    expect(unfrozen.html).toContain("It stays frozen by the operator.");
    expect(unfrozen.html).toContain('id="frozen-banner"');
    expect((await server.request("GET", "/agents/me", { key: a.apiKey })).body.frozen).toBe(true);
    await expectLedgerOk(server);
  });
});
