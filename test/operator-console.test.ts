// The operator console (/operator, issue 35) over plain HTTP with cookies, on the real server: signed in
// with a named operator key; agents found; a freeze, a deposit and a correction done from its forms
// (each after its confirmation page), each in the audit log under the operator's name, the ledger
// check still ok; a form without its CSRF token or with a reserved field name refused with nothing
// changed; a revoked or rotated key's session signed out at the next request.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { formsOf, getPage, operatorSignIn, postForm, type ConsolePage } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, type Agent, type TestServer } from "./helpers/server";

setDefaultTimeout(60_000);

let server: TestServer;
let payer: Agent;
let payee: Agent;

beforeAll(async () => {
  server = await startServer();
  payer = await server.register({ name: "ledger-keeper", ownerEmail: "grace@example.com" });
  payee = await server.register({ name: "translator" });
  await server.deposit(payer.id, 100);
});
afterAll(() => server.close());

const admin = (method: string, path: string, body?: unknown) => server.request(method, path, { key: ADMIN_KEY, body });
async function newOperator(name: string): Promise<{ id: string; apiKey: string }> {
  const made = await admin("POST", "/admin/operators", { name });
  expect(made.status).toBe(201);
  return made.body;
}
const isSignIn = (page: ConsolePage) => page.html.includes('action="/operator/login"');

/** Signs in through the sign-in form (with its CSRF cookie); returns the session cookie ("name=value"). */
async function signIn(key: string): Promise<string> {
  const { cookie, setCookie, csrfCookie } = await operatorSignIn(server, key);
  expect(csrfCookie).toContain("Path=/operator");
  expect(setCookie).toMatch(/Path=\/operator; HttpOnly; SameSite=Strict; Max-Age=28800$/);
  return cookie;
}

/** Posts the agent page's form to `action` with `fields` filled in, then its confirmation's button; answers the last reply. */
async function confirmFrom(cookie: string, action: string, fields: Record<string, string>): Promise<{ asked: ConsolePage; done: ConsolePage }> {
  const agentPage = await getPage(server, action.replace(/\/[a-z]+$/, ""), cookie);
  const form = formsOf(agentPage.html).find((candidate) => candidate.action === action)!;
  const asked = await postForm(server, action, form.fields.map(([name, value]) => [name, fields[name] ?? value]), cookie);
  expect(asked.status).toBe(200);
  const confirmForm = formsOf(asked.html).find((candidate) => candidate.action === action)!;
  return { asked, done: await postForm(server, action, confirmForm.fields, cookie) };
}

const audit = async (operator: string) => (await admin("GET", `/admin/audit?operator=${encodeURIComponent(operator)}&limit=100`)).body.data as { action: string; target: string; details: Record<string, unknown> }[];
const auditTotal = async () => (await admin("GET", "/admin/audit?limit=1")).body.pagination.total as number;
const balanceOf = async (agent: Agent) => (await admin("GET", `/admin/agents?q=${agent.id}`)).body.data[0].balances.find((b: { currency: string }) => b.currency === "USDC").available as number;
const pay = () => server.request("POST", "/payments/send", { key: payer.apiKey, body: { toAgentId: payee.id, amount: 1, currency: "USDC", reason: "a test" } });

describe("the operator console", () => {
  test("signed in with a named key: agents found by name, id and owner e-mail, with balances", async () => {
    const ada = await newOperator("Ada");
    const cookie = await signIn(ada.apiKey);
    for (const q of ["ledger-keep", payer.id, "GRACE@example"]) {
      const found = await getPage(server, `/operator?q=${encodeURIComponent(q)}`, cookie);
      expect(found.status).toBe(200);
      expect(found.html).toContain("ledger-keeper");
      expect(found.html).not.toContain("translator");
    }
    expect((await getPage(server, `/operator?q=ledger`, cookie)).html).toContain("100 USDC");
    expect((await getPage(server, "/operator/nothing", cookie)).status).toBe(404);
  });

  test("a freeze, a deposit and a correction from the console: each confirmed, done once, audited under the operator's name; the ledger check ok", async () => {
    const ada = await newOperator("Ada Freeze");
    const cookie = await signIn(ada.apiKey);
    const agentPath = `/operator/agents/${payer.id}`;

    const freeze = await confirmFrom(cookie, `${agentPath}/freeze`, { reason: "suspected key leak" });
    expect(freeze.asked.html).toContain("suspected key leak");
    expect(freeze.done.status).toBe(303);
    const refused = await pay();
    expect([refused.status, refused.body.error]).toEqual([403, "AGENT_FROZEN"]);

    const deposit = await confirmFrom(cookie, `${agentPath}/deposit`, { amount: "25.5", currency: "USDC", reference: "wire 42" });
    expect(deposit.asked.html).toContain("25.5 USDC (twenty-five and 50/100 USDC)");
    expect(deposit.done.status).toBe(303);
    expect(await balanceOf(payer)).toBe(125.5);

    const correction = await confirmFrom(cookie, `${agentPath}/correction`, { amount: "20", currency: "USDC", direction: "debit", reason: "wire 42 was 5.50" });
    expect(correction.asked.html).toContain("take 20 USDC (twenty USDC) back from");
    expect(correction.done.status).toBe(303);
    // The confirmation posted again (a second click): done once.
    const confirmForm = formsOf(correction.asked.html).find((candidate) => candidate.action === `${agentPath}/correction`)!;
    expect((await postForm(server, `${agentPath}/correction`, confirmForm.fields, cookie)).status).toBe(303);
    expect(await balanceOf(payer)).toBe(105.5);
    await expectLedgerOk(server);

    const entries = await audit("Ada Freeze");
    expect(entries.map((entry) => [entry.action, entry.target])).toEqual([
      ["agent.correct", payer.id],
      ["deposit.credit", payer.id],
      ["agent.freeze", payer.id],
    ]);
    expect(entries[0]!.details).toMatchObject({ amount: "20", currency: "USDC", direction: "debit", reason: "wire 42 was 5.50" });
    expect(JSON.stringify(entries)).not.toContain("csrf");
    expect(entries[0]!.details).not.toHaveProperty("confirm");

    const auditPage = await getPage(server, "/operator/audit", cookie);
    expect(auditPage.html).toContain("agent.correct");
    // Unfrozen again for the tests after this one.
    expect((await confirmFrom(cookie, `${agentPath}/unfreeze`, { reason: "key rotated" })).done.status).toBe(303);
    expect((await pay()).status).toBe(201);
  });

  test("a form without its CSRF token is 403 and changes nothing; a reserved field name is 400", async () => {
    const ada = await newOperator("Ada CSRF");
    const cookie = await signIn(ada.apiKey);
    const before = await auditTotal();
    const action = `/operator/agents/${payer.id}/deposit`;
    const withoutCsrf = await postForm(server, action, [["amount", "5"], ["currency", "USDC"], ["confirm", "yes"], ["once", "k1"]], cookie);
    expect(withoutCsrf.status).toBe(403);
    const csrf = formsOf((await getPage(server, `/operator/agents/${payer.id}`, cookie)).html)[0]!.fields.find(([name]) => name === "csrf")![1];
    const reserved = await postForm(server, action, [["csrf", csrf], ["amount", "5"], ["currency", "USDC"], ["confirm", "yes"], ["__proto__", "x"]], cookie);
    expect(reserved.status).toBe(400);
    const signedOut = await postForm(server, action, [["csrf", csrf], ["amount", "5"], ["currency", "USDC"], ["confirm", "yes"]]);
    expect(signedOut.status).toBe(401);
    expect(await auditTotal()).toBe(before);
    expect(await balanceOf(payer)).toBe(104.5); // 105.5 less the payment of 1 once unfrozen
    const badAmount = await postForm(server, action, [["csrf", csrf], ["amount", "5.1234567"], ["currency", "USDC"], ["confirm", "yes"]], cookie);
    expect(badAmount.status).toBe(400);
    expect(badAmount.html).toContain("decimals");
  });

  test("a revoked or rotated key's session is signed out at the next request; the bootstrap key signs in as admin", async () => {
    const ada = await newOperator("Ada Revoked");
    const cookie = await signIn(ada.apiKey);
    expect(isSignIn(await getPage(server, "/operator/audit", cookie))).toBe(false);
    expect((await admin("DELETE", `/admin/operators/${ada.id}`)).status).toBe(200);
    expect(isSignIn(await getPage(server, "/operator/audit", cookie))).toBe(true);

    const bob = await newOperator("Bob");
    const bobCookie = await signIn(bob.apiKey);
    expect((await admin("POST", `/admin/operators/${bob.id}/rotate`)).status).toBe(200);
    expect(isSignIn(await getPage(server, "/operator", bobCookie))).toBe(true);

    const adminCookie = await signIn(ADMIN_KEY);
    expect((await getPage(server, "/operator", adminCookie)).html).toContain("admin<small>operator console");
    const wrong = await getPage(server, "/operator", "");
    const form = formsOf(wrong.html)[0]!;
    const refused = await postForm(server, "/operator/login", form.fields.map(([name, value]) => [name, name === "operatorKey" ? bob.apiKey : value]), wrong.headers.get("set-cookie")!.split(";")[0]!);
    expect(refused.status).toBe(401);
  });

  test("the service's pages: failing webhooks, withdrawals, chain (none configured), the ledger check on its button, the mail outbox", async () => {
    const cookie = await signIn(ADMIN_KEY);
    for (const page of ["webhooks", "withdrawals", "withdrawals?status=SUBMITTED", "chain", "mail", "audit?operator=admin"]) expect((await getPage(server, `/operator/${page}`, cookie)).status).toBe(200);
    expect((await getPage(server, "/operator/chain", cookie)).html).toContain("no chain is configured");
    expect((await getPage(server, "/operator/mail", cookie)).html).toContain("Mail is not configured");
    expect((await getPage(server, "/operator/ledger?run=yes", cookie)).html).toContain("ok: every invariant holds");
  });
});

describe("without ADMIN_API_KEY", () => {
  test("/operator answers 404, as /admin does", async () => {
    const closed = await startServer({ env: { ADMIN_API_KEY: "" } });
    try {
      expect((await getPage(closed, "/operator")).status).toBe(404);
      expect((await postForm(closed, "/operator/login", [["operatorKey", "x"]])).status).toBe(404);
    } finally {
      await closed.close();
    }
  });
});
