// Owners are people (issue 33): an agent that registers itself gets no owner key; its owner's mailbox
// gets a claim link; opening it (and confirming) makes that person the owner and signs them in; one
// sign-in by a mailed link shows every agent the owner claimed; until then the agent spends under
// UNCLAIMED_POLICY and what it holds waits for the claim. A real SMTP server receives the mail.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { claimByMail, formsOf, getPage, postForm, signIn, type ConsolePage } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { smtpReceiver, type Received } from "./helpers/mail";
import { startServer, type TestServer } from "./helpers/server";
import { waitFor } from "./helpers/wait";

let server: TestServer;
const smtp = smtpReceiver();

beforeAll(async () => {
  await smtp.listen();
  server = await startServer({ env: { OWNER_KEY_AT_REGISTRATION: "false", SMTP_URL: smtp.url, UNCLAIMED_POLICY: "approvalAbove=20" } });
});
afterAll(async () => {
  await server.close();
  await smtp.close();
});

const register = async (name: string, ownerEmail: string) => {
  const reply = await server.request("POST", "/agents/register", { body: { name, ownerName: "Ada", ownerEmail } });
  expect(reply.status).toBe(201);
  return reply.body;
};
/** The newest message to `to` whose subject has `words`. */
const mailTo = (to: string, words: string) =>
  waitFor(() => smtp.received.filter((entry) => entry.envelope.to.includes(to) && entry.mail.subject?.includes(words)).at(-1));
const linkIn = (received: Received, path: string) => new RegExp(`${server.url}(${path}/[A-Za-z0-9_-]+)`).exec(received.mail.text ?? "")![1]!;
const cookieOf = (page: ConsolePage) => page.headers.get("set-cookie")!.split(";")[0]!;

/** Opens a link's page and presses its one button, as a browser would. */
async function follow(path: string): Promise<ConsolePage> {
  const opened = await getPage(server, path);
  expect(opened.status).toBe(200);
  const form = formsOf(opened.html).find((candidate) => candidate.action === path)!;
  return postForm(server, form.action, form.fields, cookieOf(opened));
}

describe("an agent registers itself", () => {
  test("no owner key in its answer; the claim link goes to ownerEmail; following it makes the owner and signs in", async () => {
    const email = `ada-${crypto.randomUUID()}@example.com`;
    const registered = await register("data-buyer", email);
    expect(registered.ownerKey).toBeUndefined();
    expect(registered.onboarding.owner).toMatchObject({ status: "UNCLAIMED", claimLinkSentTo: email });
    const claimMail = await mailTo(email, "Claim your agent");
    expect(claimMail.mail.subject).toBe("Claim your agent “data-buyer”");
    const claimPath = linkIn(claimMail, "/console/claim");

    // A mail scanner's GET claims nothing: the page only asks.
    const scanned = await getPage(server, claimPath);
    expect(scanned.html).toContain("Claim “data-buyer”");
    expect((await getPage(server, claimPath)).status).toBe(200);
    // A form that names a prototype, or comes without its CSRF cookie, is refused and uses nothing.
    const form = formsOf(scanned.html).find((candidate) => candidate.action === claimPath)!;
    for (const name of ["__proto__", "constructor.prototype", "a[__proto__]"]) {
      expect((await postForm(server, claimPath, [...form.fields, [name, "1"]], cookieOf(scanned))).status).toBe(400);
    }
    expect((await postForm(server, claimPath, form.fields)).status).toBe(403);
    expect((await getPage(server, claimPath)).status).toBe(200);

    const claimed = await follow(claimPath);
    expect(claimed.status).toBe(303);
    const session = cookieOf(claimed);
    const overview = await getPage(server, "/console", session);
    expect(overview.html).toContain("data-buyer");
    // Used once.
    expect((await getPage(server, claimPath)).status).toBe(410);
    await expectLedgerOk(server);
  });

  test("until claimed it spends under UNCLAIMED_POLICY: above 20 its outflow waits for the owner", async () => {
    const email = `bo-${crypto.randomUUID()}@example.com`;
    const buyer = await register("impatient", email);
    const payee = await register("seller", `s-${crypto.randomUUID()}@example.com`);
    await server.deposit(buyer.agent.id, 100, "USDC");
    const small = await server.request("POST", "/payments/send", { key: buyer.apiKey, body: { toAgentId: payee.agent.id, amount: 20, currency: "USDC" } });
    expect(small.status).toBe(201);
    const held = await server.request("POST", "/payments/send", { key: buyer.apiKey, body: { toAgentId: payee.agent.id, amount: 50, currency: "USDC" } });
    expect(held.status).toBe(202);
    expect(held.body.status).toBe("AWAITING_APPROVAL");
    expect(await server.balance({ apiKey: buyer.apiKey }, "USDC")).toEqual({ available: 30, held: 50 });
    await expectLedgerOk(server);
  });

  test("one sign-in by a mailed link shows every agent the owner claimed", async () => {
    const email = `cy-${crypto.randomUUID()}@example.com`;
    for (const name of ["first-agent", "second-agent"]) await register(name, email);
    for (const name of ["first-agent", "second-agent"]) {
      const mail = await waitFor(() => smtp.received.find((entry) => entry.envelope.to.includes(email) && entry.mail.subject?.includes(name)));
      expect((await follow(linkIn(mail, "/console/claim"))).status).toBe(303);
    }
    const signInPage = await getPage(server, "/console");
    const form = formsOf(signInPage.html).find((candidate) => candidate.action === "/console/login/email")!;
    const asked = await postForm(server, form.action, form.fields.map(([name, value]): [string, string] => [name, name === "email" ? email.toUpperCase() : value]), cookieOf(signInPage));
    expect(asked.html).toContain("a sign-in link is on its way");
    const signIn = await mailTo(email, "sign-in link");
    const signedIn = await follow(linkIn(signIn, "/console/login/link"));
    expect(signedIn.status).toBe(303);
    const overview = await getPage(server, "/console", cookieOf(signedIn));
    expect(overview.html).toContain("first-agent");
    expect(overview.html).toContain("second-agent");

    // An address nobody claimed with gets the same answer, and no mail.
    const before = smtp.received.length;
    const stranger = await postForm(server, form.action, form.fields.map(([name, value]): [string, string] => [name, name === "email" ? "nobody@example.com" : value]), cookieOf(signInPage));
    expect(stranger.html).toContain("a sign-in link is on its way");
    await Bun.sleep(300);
    expect(smtp.received.length).toBe(before);
  });
});

describe("an agent owned by its owner key", () => {
  test("keeps its key; its owner claims it with an address from the console and is told from then on", async () => {
    const keyed = await startServer();
    try {
      const agent = await keyed.register({ name: "legacy-agent" });
      expect(agent.ownerKey).toStartWith("po_");
      const session = await signIn(keyed, agent.ownerKey);
      const page = await getPage(keyed, "/console/notifications", session);
      const form = formsOf(page.html).find((candidate) => candidate.action === "/console/claim-by-mail")!;
      const email = `legacy-${crypto.randomUUID()}@example.com`;
      const asked = await postForm(keyed, form.action, [...form.fields, ["email", email]], session);
      expect(asked.html).toContain(`A claim link is on its way to ${email}`);
      const owner = await claimByMail(keyed, email);
      expect((await getPage(keyed, "/console/notifications", owner)).html).toContain("/console/notifications/webhook");
      // The owner key still works, and asking again for a claimed agent is refused.
      expect((await keyed.request("GET", "/owner/policy", { key: agent.ownerKey })).status).toBe(200);
      expect((await postForm(keyed, form.action, [...form.fields, ["email", "other@example.com"]], session)).status).toBe(409);
    } finally {
      await keyed.close();
    }
  });
});
