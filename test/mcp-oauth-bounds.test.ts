// The bounds of agentbank's OAuth for MCP hosts (issue 32), over plain HTTP with the console's session
// (test/mcp-oauth.test.ts drives the same flow with the SDK client and Chromium): a bad authorization
// request never leaves agentbank's own page; a refresh token works once, and a second use (a replay, or
// the loser of two at once, on one instance or two) revokes the grant; registration is bounded per
// address, and a client with no grant is deleted a day after it registered.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { crossWithoutJobs } from "./helpers/clock";
import { getPage, signIn } from "./helpers/console";
import { authorizationParams, decide, grantOverHttp, mcpRequest, query, refresh, registerClient, type Host, type TokenPair } from "./helpers/oauth";
import { ADMIN_KEY, startServer, TEST_POSTGRES, type TestServer } from "./helpers/server";

setDefaultTimeout(60_000);

const DAY_SECONDS = 86_400;

/** A registered client of `server` with one redirect URI. */
async function host(server: TestServer, redirectUri: string, name?: string): Promise<Host> {
  const answer = await registerClient(server, [redirectUri], name);
  expect(answer.status).toBe(201);
  return { clientId: ((await answer.json()) as { client_id: string }).client_id, redirectUri };
}

const works = async (server: TestServer, tokens: TokenPair) => (await mcpRequest(`${server.url}/mcp`, tokens.access_token, "tools/list")).status === 200;

/**
 * A new grant of `client`, whose refresh token is sent to `a` and `b` (one instance twice, or two) at
 * once: exactly one answers tokens, the other invalid_grant, and that reuse revoked what the first gave.
 */
async function refreshTwiceAtOnce([a, b]: [TestServer, TestServer], cookie: string, client: Host): Promise<void> {
  const { refresh_token } = await grantOverHttp(a, cookie, client);
  const answers = await Promise.all([refresh(a, client, refresh_token), refresh(b, client, refresh_token)]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  expect(await answers.find((answer) => answer.status === 400)!.json()).toMatchObject({ error: "invalid_grant" });
  const pair = (await answers.find((answer) => answer.status === 200)!.json()) as TokenPair;
  expect(await works(a, pair)).toBe(false);
  expect(await works(b, pair)).toBe(false);
  expect((await refresh(a, client, pair.refresh_token)).status).toBe(400);
}

describe("authorization requests and refresh tokens", () => {
  let server: TestServer;
  let cookie: string;
  let phisher: Host;

  beforeAll(async () => {
    server = await startServer();
    const owner = await server.register();
    cookie = await signIn(server, owner.ownerKey);
    // Anyone may register an https redirect URI of their choosing.
    phisher = await host(server, "https://phishing.example/callback", "Phisher");
  });
  afterAll(() => server?.close());

  test("a bad request of a registered client is shown on agentbank's page, at /oauth/authorize and on the consent page: never sent to its redirect URI", async () => {
    const bad: [string, Record<string, string | undefined>][] = [
      ["invalid_scope", { scope: "read everything" }],
      ["invalid_target", { resource: "https://elsewhere.example/mcp" }],
      ["invalid_request", { code_challenge_method: undefined }],
      ["unsupported_response_type", { response_type: "token" }],
    ];
    for (const [error, changes] of bad) {
      const path = `?${query(await authorizationParams(server, phisher, "v".repeat(50), changes))}`;
      const authorize = await getPage(server, `/oauth/authorize${path}`);
      expect({ error, status: authorize.status, location: authorize.headers.get("location") }).toEqual({ error, status: 400, location: null });
      expect(authorize.html).toContain(error);
      const consent = await getPage(server, `/console/oauth/consent${path}`, cookie);
      expect({ error, status: consent.status, location: consent.headers.get("location") }).toEqual({ error, status: 400, location: null });
      expect(consent.html).toContain(error);
    }
  });

  test("once the owner has seen the consent page, Deny goes back to the redirect URI with access_denied and the state", async () => {
    const params = await authorizationParams(server, phisher, "v".repeat(50));
    const consent = await getPage(server, `/console/oauth/consent?${query(params)}`, cookie);
    expect(consent.html).toContain("https://phishing.example/callback");
    const denied = await decide(server, cookie, params, "deny");
    expect(denied.status).toBe(303);
    const location = new URL(denied.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("https://phishing.example/callback");
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: "access_denied", state: "state-7" });
  });

  test("a replayed refresh token is refused and revokes the grant: the newest access and refresh tokens stop working", async () => {
    const client = await host(server, "http://127.0.0.1:9/callback");
    const first = await grantOverHttp(server, cookie, client);
    const renewed = await refresh(server, client, first.refresh_token);
    expect(renewed.status).toBe(200);
    const newest = (await renewed.json()) as TokenPair;
    expect(await works(server, newest)).toBe(true);

    const replay = await refresh(server, client, first.refresh_token);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
    expect(await works(server, newest)).toBe(false);
    expect(await works(server, first)).toBe(false);
    const next = await refresh(server, client, newest.refresh_token);
    expect(next.status).toBe(400);
    expect(await next.json()).toMatchObject({ error: "invalid_grant" });
  });

  test("two refreshes with one token at once: one gets tokens, the other is a reuse that revokes them (never two working pairs)", async () => {
    const client = await host(server, "http://127.0.0.1:9/callback");
    for (let round = 0; round < 3; round++) await refreshTwiceAtOnce([server, server], cookie, client);
  });
});

describe.skipIf(TEST_POSTGRES === undefined)("one refresh token sent to two instances at once (PostgreSQL)", () => {
  let instances: TestServer[] = [];

  beforeAll(async () => {
    const first = await startServer();
    instances = [first, await startServer({ postgres: undefined, env: { ...first.sharedDatabaseEnv, ADMIN_API_KEY: ADMIN_KEY } })];
  });
  afterAll(async () => {
    await instances[1]?.close();
    await instances[0]?.close();
  });

  test("in every round exactly one instance gives tokens, and the other's refusal revokes them", async () => {
    const pair = instances as [TestServer, TestServer];
    const cookie = await signIn(pair[0], (await pair[0].register()).ownerKey);
    const client = await host(pair[0], "http://127.0.0.1:9/callback");
    for (let round = 0; round < 6; round++) await refreshTwiceAtOnce(pair, cookie, client);
  });
});

describe("client registration: per address per day, and clients nobody granted anything are deleted after a day", () => {
  let server: TestServer;
  let cookie: string;

  beforeAll(async () => {
    server = await startServer();
    cookie = await signIn(server, (await server.register()).ownerKey);
  });
  afterAll(() => server?.close());

  test("the 21st registration from one address in a day is 429; a day later the unused clients are gone and the address registers again; a client with a grant stays", async () => {
    const used = await host(server, "http://127.0.0.1:9/used");
    const grant = await grantOverHttp(server, cookie, used);
    const unused = await host(server, "https://unused.example/callback");
    for (let n = 2; n < 20; n++) await host(server, `https://many.example/${n}`);
    const refused = await registerClient(server, ["https://many.example/21"]);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(DAY_SECONDS - 600);
    expect(await refused.json()).toMatchObject({ error: "RATE_LIMIT_EXCEEDED" });

    // A day later (the jobs run): the unused are deleted, the one with a grant stays and its grant still refreshes.
    await server.advance(DAY_SECONDS + 1);
    const gone = await getPage(server, `/oauth/authorize?${query(await authorizationParams(server, unused, "v".repeat(50)))}`);
    expect(gone.status).toBe(400);
    expect(gone.html).toContain("Unknown client_id");
    const kept = await getPage(server, `/oauth/authorize?${query(await authorizationParams(server, used, "v".repeat(50)))}`);
    expect(kept.status).toBe(303);
    expect((await refresh(server, used, grant.refresh_token)).status).toBe(200);
    expect((await registerClient(server, ["https://many.example/again"])).status).toBe(201);
  });

  test("a client due for deletion is unknown at once, before the job has run", async () => {
    const answer = await registerClient(server, ["https://late.example/callback"]);
    const { client_id, client_id_issued_at } = (await answer.json()) as { client_id: string; client_id_issued_at: number };
    await crossWithoutJobs(server, (client_id_issued_at + 1 + DAY_SECONDS) * 1000);
    const gone = await getPage(server, `/oauth/authorize?${query(await authorizationParams(server, { clientId: client_id, redirectUri: "https://late.example/callback" }, "v".repeat(50)))}`);
    expect(gone.status).toBe(400);
    expect(gone.html).toContain("Unknown client_id");
  });
});
