// The owner's decisions on held outflows are exactly-once (issue 22): of parallel approves one answers
// 200 and the money moves once; an approve racing a decline ends as the one that answered 200 says;
// decline checks termsHash as approve does. A held outflow past its expiry reads EXPIRED at once (no
// job tick needed), and an approve or decline refused because of it keeps the expiry it applied.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { financialNotifications } from "./helpers/inbox";
import { crossWithoutJobs } from "./helpers/clock";
import { expectLedgerOk } from "./helpers/ledger";
import { availableAfter, outflowPaths } from "./helpers/outflows";
import { startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
let counterparty: Agent;
let provider: Agent;
const PATHS = outflowPaths(() => server, () => ({ counterparty, provider }));

beforeAll(async () => {
  server = await startServer();
  counterparty = await server.register();
  await server.deposit(counterparty.id, 10_000);
  provider = await server.register();
});
afterAll(() => server.close());

const approve = (agent: Agent, id: string, body?: unknown) => server.request("POST", `/owner/approvals/${id}/approve`, { key: agent.ownerKey, body });
const decline = (agent: Agent, id: string, body?: unknown) => server.request("POST", `/owner/approvals/${id}/decline`, { key: agent.ownerKey, body });
const approvalOf = async (agent: Agent, id: string) => (await server.request("GET", `/approvals/${id}`, { key: agent.apiKey })).body;

/** An agent with 100 USDC whose owner approves above 20, and one of its outflows (30) held. */
async function heldOutflow(make: (agent: Agent, amount: number) => Promise<{ status: number; body: any }>, policy: Record<string, unknown> = {}) {
  const agent = await server.register();
  await server.deposit(agent.id, 100);
  await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { approvalAbove: { USDC: 20 }, ...policy } });
  const held = await make(agent, 30);
  expect(held.status).toBe(202);
  return { agent, approvalId: held.body.approvalId as string, expiresAt: Date.parse(held.body.expiresAt) };
}

const statuses = (replies: { status: number }[]) => replies.map((reply) => reply.status).sort();

describe("approve and decline are exactly-once", () => {
  for (const path of PATHS) {
    test(`${path.name}: 4 parallel approves answer one 200 and three 409; the money moves once`, async () => {
      const { agent, approvalId } = await heldOutflow(path.make);
      const count = await path.count(agent);
      const replies = await Promise.all([1, 2, 3, 4].map(() => approve(agent, approvalId)));
      expect(statuses(replies)).toEqual([200, 409, 409, 409]);
      expect(replies.find((reply) => reply.status === 200)!.body).toMatchObject({ id: approvalId, status: "APPROVED" });
      for (const refused of replies.filter((reply) => reply.status === 409)) expect(refused.body.error).toBe("INVALID_STATE");
      expect(await path.count(agent)).toBe(count + 1);
      expect((await server.balance(agent)).available).toBe(availableAfter(path, 100, 30));
      expect((await financialNotifications(server, agent, "approval.")).map((n) => n.kind)).toEqual(["approval.approved"]);
      await expectLedgerOk(server);
    });

    test(`${path.name}: an approve racing a decline: one answers 200, and the approval ends as that one says`, async () => {
      const { agent, approvalId } = await heldOutflow(path.make);
      const count = await path.count(agent);
      const [approved, declined] = await Promise.all([approve(agent, approvalId), decline(agent, approvalId)]);
      expect(statuses([approved, declined])).toEqual([200, 409]);
      const winner = approved.status === 200 ? "APPROVED" : "DECLINED";
      expect((approved.status === 200 ? approved : declined).body.status).toBe(winner);
      expect((await approvalOf(agent, approvalId)).status).toBe(winner);
      expect(await path.count(agent)).toBe(winner === "APPROVED" ? count + 1 : count);
      if (winner === "DECLINED") expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
      else expect((await server.balance(agent)).available).toBe(availableAfter(path, 100, 30));
      await expectLedgerOk(server);
    });
  }

  test("4 parallel declines answer one 200 and three 409; the hold is released once", async () => {
    const { agent, approvalId } = await heldOutflow(PATHS[0]!.make);
    const replies = await Promise.all([1, 2, 3, 4].map(() => decline(agent, approvalId)));
    expect(statuses(replies)).toEqual([200, 409, 409, 409]);
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    expect((await financialNotifications(server, agent, "approval.")).map((n) => n.kind)).toEqual(["approval.declined"]);
    await expectLedgerOk(server);
  });

  test("decline checks termsHash as approve does: another hash is 409 and changes nothing; the held one declines", async () => {
    const { agent, approvalId } = await heldOutflow(PATHS[0]!.make);
    const { termsHash } = await approvalOf(agent, approvalId);
    const refused = await decline(agent, approvalId, { termsHash: "0".repeat(64) });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "INVALID_STATE", message: expect.stringContaining("termsHash") });
    expect((await approvalOf(agent, approvalId)).status).toBe("PENDING");
    expect(await server.balance(agent)).toEqual({ available: 70, held: 30 });
    expect((await decline(agent, approvalId, { termsHash: "xyz" })).status).toBe(400);
    const declined = await decline(agent, approvalId, { termsHash });
    expect(declined.status).toBe(200);
    expect(declined.body.status).toBe("DECLINED");
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  });
});

/** Signs the owner in to the console as a browser would; returns the session's cookie. */
async function consoleSession(ownerKey: string): Promise<string> {
  const cookies = (response: Response) => response.headers.getSetCookie().map((set) => set.split(";")[0]).join("; ");
  const form = await fetch(`${server.url}/console`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const signedIn = await fetch(`${server.url}/console/login`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookies(form), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrf, ownerKey }),
  });
  return cookies(signedIn);
}

/** A test that waits for the start of a scheduler period (up to 5 s). */
const WAITS_FOR_PERIOD = { timeout: 20_000 };

describe("expiry is applied on every read and action, and kept when the action is refused", () => {
  test("GET /approvals/{id} right after the expiry passes reads EXPIRED, with the hold released (no job has run)", async () => {
    const { agent, approvalId, expiresAt } = await heldOutflow(PATHS[0]!.make);
    await crossWithoutJobs(server, expiresAt);
    expect(await approvalOf(agent, approvalId)).toMatchObject({ status: "EXPIRED", reason: "APPROVAL_EXPIRED: not approved within 24 h" });
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });
    await expectLedgerOk(server);
  }, WAITS_FOR_PERIOD);

  test("the console's count of what waits does not count a held outflow past its expiry", async () => {
    const { agent, expiresAt } = await heldOutflow(PATHS[0]!.make);
    // Signed in again after the crossing: the clock passes the session's lifetime too.
    const waiting = async () => {
      const session = await consoleSession(agent.ownerKey);
      const page = await (await fetch(`${server.url}/console/policy`, { headers: { cookie: session } })).text();
      expect(page).toContain("Spending policy");
      return /id="pending-count"[^>]*>(\d+)</.exec(page)?.[1];
    };
    expect(await waiting()).toBe("1");
    await crossWithoutJobs(server, expiresAt);
    expect(await waiting()).toBeUndefined();
  }, WAITS_FOR_PERIOD);

  test("a decline or approve past the expiry is 409, and the expiry stays: hold released, usage given back, agent told", async () => {
    const agent = await server.register();
    await server.deposit(agent.id, 100);
    await server.request("PUT", "/owner/policy", { key: agent.ownerKey, body: { approvalAbove: { USDC: 20 }, daily: { USDC: 80 } } });
    const first = (await PATHS[0]!.make(agent, 30)).body;
    const second = (await PATHS[0]!.make(agent, 30)).body;
    expect(await server.balance(agent)).toEqual({ available: 40, held: 60 });
    await crossWithoutJobs(server, Date.parse(second.expiresAt));

    const declined = await decline(agent, first.approvalId);
    expect(declined.status).toBe(409);
    expect(declined.body).toMatchObject({ error: "INVALID_STATE", message: "the approval is EXPIRED" });
    // Read before anything else could apply the second one's expiry: only the first's hold is back.
    expect(await server.balance(agent)).toEqual({ available: 70, held: 30 });
    const approved = await approve(agent, second.approvalId);
    expect(approved.status).toBe(409);
    expect(approved.body.message).toBe("the approval is EXPIRED");
    expect(await server.balance(agent)).toEqual({ available: 100, held: 0 });

    expect((await server.request("GET", "/owner/policy", { key: agent.ownerKey })).body.remainingToday).toEqual({ USDC: 80 });
    expect((await financialNotifications(server, agent, "approval.")).map((n) => [n.kind, n.approvalId])).toEqual([
      ["approval.expired", first.approvalId],
      ["approval.expired", second.approvalId],
    ]);
    for (const { approvalId } of [first, second]) expect((await approvalOf(agent, approvalId)).status).toBe("EXPIRED");
    await expectLedgerOk(server);
  }, WAITS_FOR_PERIOD);
});
