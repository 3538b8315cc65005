// The owner console over plain HTTP, at its edges (issue 32): the history's CSV defuses every start
// of a formula a spreadsheet would run, and sign-in refuses a `next` that is not a console page before
// anything is written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formsOf, getPage, postForm, signIn } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let owner: Agent;
let payee: Agent;
beforeAll(async () => {
  server = await startServer();
  owner = await server.register({ name: "csv-agent" });
  payee = await server.register({ name: "payee-agent" });
  await server.deposit(owner.id, 100);
});
afterAll(() => server.close());

describe("the history as CSV", () => {
  test("a formula behind whitespace, a line break or a fullwidth sign starts with '; amounts stay numbers", async () => {
    // What each reason must become in its cell (before RFC 4180 quoting).
    const reasons: [string, string][] = [
      ["=1+1", "'=1+1"],
      [" =1+1", "' =1+1"],
      ["\n=1+1", "'\n=1+1"],
      ["\r\n@SUM(A1)", "'\r\n@SUM(A1)"],
      ["\t-2+3", "'\t-2+3"],
      ["\tplain", "'\tplain"],
      ["＝HYPERLINK(\"http://evil\")", "'＝HYPERLINK(\"http://evil\")"],
      ["  ＋1", "'  ＋1"],
      ["－1", "'－1"],
      ["＠SUM(1)", "'＠SUM(1)"],
      ["\u00a0+1", "'\u00a0+1"],
      ["rent - March", "rent - March"],
      ["1+1", "1+1"],
    ];
    for (const [reason] of reasons) {
      const paid = await server.request("POST", "/payments/send", { key: owner.apiKey, body: { toAgentId: payee.id, amount: 1.25, currency: "USDC", reason } });
      expect({ reason, status: paid.status }).toEqual({ reason, status: 201 });
    }
    const day = (await server.request("GET", "/health")).body.timestamp.slice(0, 10);
    const cookie = await signIn(server, owner.ownerKey);
    const csv = await fetch(`${server.url}/console/history.csv?from=${day}&to=${day}`, { headers: { cookie } });
    expect(csv.status).toBe(200);
    const text = await csv.text();
    for (const [reason, cell] of reasons) {
      const quoted = /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
      expect({ reason, found: text.includes(`,${quoted},payee-agent,${payee.id},-1.250000,USDC,no,`) }).toEqual({ reason, found: true });
    }
    await expectLedgerOk(server);
  });
});

describe("sign-in's next", () => {
  /** Posts the sign-in form with the right owner key and `next`. */
  async function signInWith(next: string) {
    const loginPage = await getPage(server, "/console");
    const csrfCookie = loginPage.headers.get("set-cookie")!.split(";")[0]!;
    const form = formsOf(loginPage.html).find((candidate) => candidate.action === "/console/login")!;
    const fields = form.fields.map(([name, value]): [string, string] => [name, name === "ownerKey" ? owner.ownerKey : value]);
    return postForm(server, "/console/login", [...fields, ["next", next]], csrfCookie);
  }

  test("a control character, a line separator or anything but a console page is 400, with no session", async () => {
    for (const next of [
      "/console/keys\r\nSet-Cookie: planted=1",
      "/console/keys\n",
      "/console/keys\u2028",
      "/console/keys\u2029x",
      "/console/keys\u0085",
      "/console/keys\u0000",
      "/console/keys\u007f",
      "/console/k eys",
      "/console/kéys",
      "https://evil.example/console/keys",
      "//evil.example/console/keys",
      "/consolex",
      "/console/",
    ]) {
      const answer = await signInWith(next);
      expect({ next, status: answer.status, cookie: answer.headers.get("set-cookie") }).toEqual({ next, status: 400, cookie: null });
    }
  });

  test("a console page, with its query, is where sign-in goes", async () => {
    const next = "/console/oauth/consent?client_id=c1&redirect_uri=https%3A%2F%2Fhost.example%2Fcb&state=a|b";
    const answer = await signInWith(next);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(next);
    expect(answer.headers.get("set-cookie")).toStartWith("agentbank_session=");
  });
});

describe("the Notifications page without an owner account", () => {
  test("signed in with an agent's owner key, it says notifications go to an owner account, and its forms refuse the session (403)", async () => {
    const cookie = await signIn(server, owner.ownerKey);
    const page = await getPage(server, "/console/notifications", cookie);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Notifications go to an owner account");
    // The header's forms (sign out) and the claim with an address (test/owner-accounts.test.ts): nothing to set or choose.
    expect(formsOf(page.html).map((form) => form.action)).toEqual(["/console/logout", "/console/claim-by-mail"]);
    expect((await getPage(server, "/console/notifications/rotate", cookie)).html).not.toContain("Yes, replace the signing secret");
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)![1]!;
    for (const [action, fields] of [
      ["/console/notifications/webhook", [["url", "https://example.com/hook"], ["format", "standard"]]],
      ["/console/notifications/webhook/remove", []],
      ["/console/notifications/rotate", []],
      ["/console/notifications/test", [["kind", "approval.held"]]],
      ["/console/notifications/channels", [["email.approval.held", "on"]]],
    ] as [string, [string, string][]][]) {
      const answer = await postForm(server, action, [["csrf", csrf], ...fields], cookie);
      expect({ action, status: answer.status, says: answer.html.includes("Notifications belong to an owner account") }).toEqual({ action, status: 403, says: true });
    }
  });
});
