// MCP hosts identified by a client ID metadata document (MCP 2026-07-28, draft-ietf-oauth-client-id-
// metadata-document): the client_id is the URL of a JSON document, served here by a test HTTP server on
// loopback (reached with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, the outbound guard's development switch, as
// the webhook tests use it). A sound document completes the flow with PKCE and its token works at /mcp;
// every bad document (client_id mismatch, redirect URI not listed, too large, too slow, a redirect, a
// secret) and a private address without the switch is refused on agentbank's own page with nothing
// stored; a document is fetched once within its cache time; every authorization response carries iss,
// the metadata's issuer (RFC 9207).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { formsOf, getPage, postForm, signIn } from "./helpers/console";
import { directDatabase } from "./helpers/database";
import { expectLedgerOk } from "./helpers/ledger";
import { authorizationParams, decide, grantOverHttp, mcpRequest, query, refresh, registerClient, type Host } from "./helpers/oauth";
import { startServer, type TestServer } from "./helpers/server";

setDefaultTimeout(60_000);

const hits = new Map<string, number>();
let documents: ReturnType<typeof Bun.serve>;
let base: string;
const REDIRECT_URI = "http://127.0.0.1:9/callback";

/** The document a host serves at `path`: its own URL as client_id, one loopback redirect URI, with `changes`. */
const documentAt = (path: string, changes: Record<string, unknown> = {}) => ({
  client_id: `${base}${path}`,
  client_name: "Doc host <b>bold</b>",
  redirect_uris: [REDIRECT_URI],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  ...changes,
});

beforeAll(() => {
  documents = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const json = (body: unknown, headers: Record<string, string> = {}) => Response.json(body, { headers: { "cache-control": "max-age=600", ...headers } });
      switch (path) {
        case "/good.json":
          return json(documentAt(path));
        case "/mismatch.json":
          return json(documentAt(path, { client_id: `${base}/other.json` }));
        case "/large.json":
          return json(documentAt(path, { logo_uri: `https://example.com/${"x".repeat(6_000)}` }));
        case "/slow.json":
          await Bun.sleep(7_000);
          return json(documentAt(path));
        case "/redirect.json":
          return new Response(null, { status: 302, headers: { location: "/good.json" } });
        case "/secret.json":
          return json(documentAt(path, { client_secret: "s3cret" }));
        case "/jwt.json":
          return json(documentAt(path, { token_endpoint_auth_method: "private_key_jwt", jwks_uri: "https://example.com/jwks" }));
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  base = `http://127.0.0.1:${documents.port}`;
});
afterAll(() => documents?.stop(true));

/** A page's text as the owner reads it (the entities the pages escape with decoded). */
const textOf = (html: string) => html.replaceAll("&#x27;", "'").replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&amp;", "&");

/** The client_ids and codes stored. */
async function stored(server: TestServer): Promise<{ clients: string[]; codes: number }> {
  const db = directDatabase(server);
  try {
    const clients = (await db.execute("SELECT id FROM oauth_clients ORDER BY id")).map((row) => String(row.id));
    const codes = Number((await db.execute("SELECT COUNT(*) AS count FROM oauth_codes"))[0]!.count);
    return { clients, codes };
  } finally {
    db.close();
  }
}

describe("with the outbound guard's development switch", () => {
  let server: TestServer;
  let cookie: string;
  let issuer: string;

  beforeAll(async () => {
    server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
    cookie = await signIn(server, (await server.register()).ownerKey);
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    issuer = String(metadata.issuer);
  });
  afterAll(() => server?.close());

  test("the authorization server's metadata advertises metadata documents and iss, beside registration", async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: server.url,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${server.url}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      response_modes_supported: ["query"],
    });
    const resource = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(resource).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [issuer] });
  });

  test("each bad document, or a redirect URI it does not list, is refused on agentbank's page; nothing is stored", async () => {
    const cases: [string, string, string][] = [
      ["/mismatch.json", REDIRECT_URI, "its client_id is not exactly the URL it was fetched from"],
      ["/good.json", "http://127.0.0.1:9/elsewhere", "redirect_uri is not one the application's metadata document lists"],
      ["/large.json", REDIRECT_URI, "it is larger than 5 KiB"],
      ["/slow.json", REDIRECT_URI, "it did not arrive within 5 s"],
      ["/redirect.json", REDIRECT_URI, "it answered a redirect (HTTP 302); redirects are not followed"],
      ["/secret.json", REDIRECT_URI, "it holds a client_secret"],
      ["/jwt.json", REDIRECT_URI, 'token_endpoint_auth_method is "private_key_jwt": this server takes public clients only'],
      ["/missing.json", REDIRECT_URI, "it answered HTTP 404, not 200"],
      ["/", REDIRECT_URI, "a client_id URL has a path"],
    ];
    for (const [path, redirectUri, reason] of cases) {
      const params = await authorizationParams(server, { clientId: `${base}${path}`, redirectUri }, "v".repeat(50));
      for (const at of ["/oauth/authorize", "/console/oauth/consent"]) {
        const page = await getPage(server, `${at}?${query(params)}`, cookie);
        expect({ path, at, status: page.status, location: page.headers.get("location") }).toEqual({ path, at, status: 400, location: null });
        expect(textOf(page.html)).toContain(reason);
      }
    }
    // The owner's Approve sent anyway for each (a good request's form with the client_id changed) is refused the same way.
    const good = await getPage(server, `/console/oauth/consent?${query(await authorizationParams(server, { clientId: `${base}/good.json`, redirectUri: REDIRECT_URI }, "v".repeat(50)))}`, cookie);
    const form = formsOf(good.html).find((candidate) => candidate.action === "/console/oauth/consent")!;
    for (const [path, redirectUri, reason] of cases.filter(([path]) => path !== "/slow.json")) {
      const fields = form.fields.map(([name, value]): [string, string] => [name, name === "client_id" ? `${base}${path}` : name === "redirect_uri" ? redirectUri : value]);
      const answer = await postForm(server, "/console/oauth/consent", [...fields, ["scope_read", "1"], ["decision", "approve"]], cookie);
      expect({ path, status: answer.status, location: answer.headers.get("location") }).toEqual({ path, status: 400, location: null });
      expect(textOf(answer.html)).toContain(reason);
    }
    // Not followed: the redirect's target was never asked for through it (fetched once, then kept).
    expect(hits.get("/good.json") ?? 0).toBe(1);
    expect(await stored(server)).toEqual({ clients: [], codes: 0 });
  });

  test("a document host completes the flow with PKCE, is named by its host on the consent page, and its token works at /mcp", async () => {
    const host: Host = { clientId: `${base}/good.json`, redirectUri: REDIRECT_URI };
    const consent = await getPage(server, `/console/oauth/consent?${query(await authorizationParams(server, host, "v".repeat(50)))}`, cookie);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain("Doc host &lt;b&gt;bold&lt;/b&gt;");
    expect(consent.html).not.toContain("<b>bold</b>");
    expect(consent.html).toMatch(new RegExp(`id="client-host">The application is the one at <strong>127\\.0\\.0\\.1:${documents.port}</strong>`));
    expect(consent.html).toContain('id="loopback-warning"');
    const tokens = await grantOverHttp(server, cookie, host);
    expect((await mcpRequest(`${server.url}/mcp`, tokens.access_token, "tools/list")).status).toBe(200);
    const renewed = await refresh(server, host, tokens.refresh_token);
    expect(renewed.status).toBe(200);
    expect((await stored(server)).clients).toEqual([host.clientId]);
    await expectLedgerOk(server);
  });

  test("a document is fetched once within its cache time (max-age 600), and again after it", async () => {
    const host: Host = { clientId: `${base}/good.json`, redirectUri: REDIRECT_URI };
    const before = hits.get("/good.json")!;
    await grantOverHttp(server, cookie, host);
    expect((await getPage(server, `/oauth/authorize?${query(await authorizationParams(server, host, "v".repeat(50)))}`)).status).toBe(303);
    expect(hits.get("/good.json")).toBe(before);
    await server.advance(601);
    expect((await getPage(server, `/oauth/authorize?${query(await authorizationParams(server, host, "v".repeat(50)))}`)).status).toBe(303);
    expect(hits.get("/good.json")).toBe(before + 1);
  });

  test("every authorization response carries iss, the metadata's issuer: a code, and access_denied", async () => {
    const registered = await registerClient(server, [REDIRECT_URI]);
    const hosts: Host[] = [
      { clientId: `${base}/good.json`, redirectUri: REDIRECT_URI },
      { clientId: ((await registered.json()) as { client_id: string }).client_id, redirectUri: REDIRECT_URI },
    ];
    for (const host of hosts) {
      for (const decision of ["approve", "deny"] as const) {
        const answer = await decide(server, cookie, await authorizationParams(server, host, "v".repeat(50)), decision);
        expect(answer.status).toBe(303);
        const location = new URL(answer.headers.get("location")!);
        expect(location.searchParams.get("iss")).toBe(issuer);
        expect(location.searchParams.get(decision === "approve" ? "code" : "error")).toBeTruthy();
      }
    }
  });
});

test("without the switch, a client_id on a loopback or private address is refused before anything is fetched, and http is refused; /oauth/authorize with a document counts as a public route", async () => {
  const server = await startServer({ env: { RATE_LIMIT_PUBLIC: "4" } });
  try {
    const cookie = await signIn(server, (await server.register()).ownerKey);
    const before = hits.get("/good.json") ?? 0;
    const cases: [string, string][] = [
      [`https://127.0.0.1:${documents.port}/good.json`, "it may not be fetched: the URL resolves to a loopback, private"],
      ["https://10.1.2.3/client.json", "it may not be fetched: the URL resolves to a loopback, private"],
      [`${base}/good.json`, "a client_id URL is https"],
    ];
    for (const [clientId, reason] of cases) {
      const page = await getPage(server, `/console/oauth/consent?${query(await authorizationParams(server, { clientId, redirectUri: REDIRECT_URI }, "v".repeat(50)))}`, cookie);
      expect({ clientId, status: page.status }).toEqual({ clientId, status: 400 });
      expect(textOf(page.html)).toContain(reason);
    }
    expect(hits.get("/good.json") ?? 0).toBe(before);
    expect(await stored(server)).toEqual({ clients: [], codes: 0 });
    // Registering the owner counted one of the 4; the fourth fetch asked for is refused before it is made.
    const authorize = await authorizationParams(server, { clientId: "https://10.1.2.3/client.json", redirectUri: REDIRECT_URI }, "v".repeat(50));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await getPage(server, `/oauth/authorize?${query(authorize)}`)).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
  } finally {
    server.close();
  }
});
