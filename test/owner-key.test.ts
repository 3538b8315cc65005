// Owner key rotation (issue 22): POST /owner/key/rotate answers a new po_ key once; the old key and
// every console session signed in with it end at once; of concurrent rotations with one key exactly
// one succeeds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { formsOf, getPage, isSignIn, postForm, signIn } from "./helpers/console";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => (server = await startServer()));
afterAll(() => server.close());

const rotate = (key: string) => server.request("POST", "/owner/key/rotate", { key });
const policy = (key: string) => server.request("GET", "/owner/policy", { key });

test("rotating answers a new owner key once; the old key and its console sessions end at once", async () => {
  const agent = await server.register();
  const session = await signIn(server, agent.ownerKey);
  expect(isSignIn(await getPage(server, "/console/policy", session))).toBe(false);

  const rotated = await rotate(agent.ownerKey);
  expect(rotated.status).toBe(200);
  expect(Object.keys(rotated.body)).toEqual(["ownerKey", "revokedKeys"]);
  expect(rotated.body.revokedKeys).toBe(0);
  const newKey: string = rotated.body.ownerKey;
  expect(newKey).toMatch(/^po_[A-Za-z0-9_-]{43,}$/);

  expect((await policy(agent.ownerKey)).status).toBe(401);
  expect((await policy(newKey)).status).toBe(200);
  // The session signed in with the old key is over: pages ask to sign in, forms are refused.
  expect(isSignIn(await getPage(server, "/console/policy", session))).toBe(true);
  const form = formsOf((await getPage(server, "/console/policy", await signIn(server, newKey))).html).find((candidate) => candidate.action === "/console/policy")!;
  const stale = await postForm(server, "/console/policy", form.fields, session);
  expect(stale.status).toBe(401);
  expect(isSignIn(stale)).toBe(true);
  // The old key cannot sign in again; the new one can.
  await expect(signIn(server, agent.ownerKey)).rejects.toThrow("401");
  expect(isSignIn(await getPage(server, "/console", await signIn(server, newKey)))).toBe(false);
  // The agent's own key is untouched.
  expect((await server.request("GET", "/agents/me", { key: agent.apiKey })).status).toBe(200);
});

test("only the owner key rotates it: the agent key is 403, no key 401", async () => {
  const agent = await server.register();
  expect((await rotate(agent.apiKey)).status).toBe(403);
  expect((await server.request("POST", "/owner/key/rotate")).status).toBe(401);
  expect((await policy(agent.ownerKey)).status).toBe(200);
});

test("of 10 parallel rotations with one key exactly one succeeds, and its key is the one in force", async () => {
  const agent = await server.register();
  const answers = await Promise.all(Array.from({ length: 10 }, () => rotate(agent.ownerKey)));
  const won = answers.filter((answer) => answer.status === 200);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(401)]);
  for (const lost of answers.filter((answer) => answer.status !== 200)) expect(lost.body.error).toBe("UNAUTHORIZED");
  expect((await policy(won[0]!.body.ownerKey)).status).toBe(200);
  expect((await policy(agent.ownerKey)).status).toBe(401);
});

test("the console replaces the owner key after a confirmation, shows it once and signs every session out", async () => {
  const agent = await server.register();
  const session = await signIn(server, agent.ownerKey);
  const other = await signIn(server, agent.ownerKey);
  const keys = await getPage(server, "/console/security", session);
  expect(keys.html).toContain('href="/console/security/owner-key"');
  // The confirmation page changes nothing; its form carries the CSRF token.
  const confirm = await getPage(server, "/console/security/owner-key", session);
  const form = formsOf(confirm.html).find((candidate) => candidate.action === "/console/security/owner-key")!;
  expect(form.fields.map(([name]) => name)).toEqual(["csrf"]);
  expect(confirm.html).toContain('name="keepRestrictedKeys"');
  expect((await policy(agent.ownerKey)).status).toBe(200);
  expect((await postForm(server, form.action, [["csrf", "wrong"]], session)).status).toBe(403);
  expect((await policy(agent.ownerKey)).status).toBe(200);

  const done = await postForm(server, form.action, form.fields, session);
  expect(done.status).toBe(200);
  const newKey = /id="new-owner-key">([^<]+)</.exec(done.html)![1]!;
  expect(newKey).toMatch(/^po_/);
  expect(done.headers.get("set-cookie")).toContain("Max-Age=0");
  expect((await policy(agent.ownerKey)).status).toBe(401);
  expect((await policy(newKey)).status).toBe(200);
  for (const ended of [session, other]) expect(isSignIn(await getPage(server, "/console/security", ended))).toBe(true);
  // Posting the confirmation again with the ended session changes nothing.
  expect((await postForm(server, form.action, form.fields, session)).status).toBe(401);
  expect((await policy(newKey)).status).toBe(200);
  await expectLedgerOk(server);
});
