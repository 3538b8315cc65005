// OAuth 2.1 for MCP hosts: the protected resource's metadata (RFC 9728), the authorization server's
// metadata (RFC 8414), dynamic client registration (RFC 7591; deprecated by MCP 2026-07-28 in favour of
// client ID metadata documents, oauth/documents.ts, and kept for older hosts), the authorization
// endpoint (which sends the browser to the consent page in the owner console) and the token endpoint (a form, RFC 6749 §3.2;
// hidden from the OpenAPI document, which describes JSON bodies only). Their refusals are OAuth's own
// error codes (`error`, `error_description`), with `message` as on every other route.
import { Elysia, t } from "elysia";
import { clientAddressOf, consume } from "../auth/rate-limit";
import { config } from "../config";
import { type Op } from "../db";
import { door, type DueContext } from "../door";
import { noteError } from "../http/log";
import { docs } from "../http/models";
import { answers, Model } from "../http/responses";
import { ownProperty } from "../json";
import { SCOPES } from "../keys/scopes";
import { applyRequestedClientDue, AuthorizationQuery, baseUrlOf, checkAuthorization, mcpResourceOf } from "./authorize";
import { OAuthError, registerClient, registeredClientView, registrantOf } from "./clients";
import { isDocumentClientId } from "./documents";
import { exchangeCode, refreshGrant, type Refused, type Tokens } from "./service";

/** OAuth's refusal (noted for the request's log line: its code is OAuth's `error`). */
const oauthError = (request: Request, error: OAuthError) => {
  noteError(request, error.error, error.description);
  return Response.json({ error: error.error, error_description: error.description, message: error.description }, { status: error.status, headers: { "cache-control": "no-store" } });
};
const page = (text: string, status = 400) =>
  new Response(`<!doctype html><meta charset="utf-8"><title>Authorization refused</title><p>${Bun.escapeHTML(text)}</p>`, { status, headers: { "content-type": "text/html; charset=utf-8" } });

const Strings = t.Array(t.String({ maxLength: 100 }), { maxItems: 10 });
const ClientMetadataBody = t.Object(
  {
    redirect_uris: t.Array(t.String({ maxLength: 500 }), { minItems: 1, maxItems: 5, description: "https, or http to a loopback address; no fragment" }),
    client_name: t.Optional(t.String({ maxLength: 80, description: "shown to the owner on the consent page" })),
    grant_types: t.Optional(Strings),
    response_types: t.Optional(Strings),
    token_endpoint_auth_method: t.Optional(t.String({ maxLength: 50, description: "none: public clients only (PKCE)" })),
    scope: t.Optional(t.String({ maxLength: 500 })),
  },
  // RFC 7591 §2: metadata the server does not use is ignored, not refused.
  { additionalProperties: true, maxProperties: 40 },
);
const RegisteredClient = Model(
  {
    client_id: t.String(),
    client_name: t.String(),
    redirect_uris: t.Array(t.String()),
    grant_types: t.Array(t.String()),
    response_types: t.Array(t.String()),
    token_endpoint_auth_method: t.Literal("none"),
    client_id_issued_at: t.Integer({ description: "seconds since 1970" }),
  },
  { description: "A registered client (RFC 7591 §3.2.1): a public client, without a secret" },
);
const ProtectedResource = Model(
  { resource: t.String(), authorization_servers: t.Array(t.String()), scopes_supported: t.Array(t.String()), bearer_methods_supported: t.Array(t.String()), resource_name: t.String() },
  { description: "OAuth 2.0 protected resource metadata (RFC 9728) of /mcp" },
);
const AuthorizationServer = Model(
  {
    issuer: t.String(),
    authorization_endpoint: t.String(),
    token_endpoint: t.String(),
    registration_endpoint: t.String(),
    scopes_supported: t.Array(t.String()),
    response_types_supported: t.Array(t.String()),
    grant_types_supported: t.Array(t.String()),
    code_challenge_methods_supported: t.Array(t.String()),
    token_endpoint_auth_methods_supported: t.Array(t.String()),
    response_modes_supported: t.Array(t.String()),
    authorization_response_iss_parameter_supported: t.Boolean({ description: "every authorization response carries iss (RFC 9207)" }),
    client_id_metadata_document_supported: t.Boolean({ description: "a client_id may be the https URL of the client's metadata document (CIMD)" }),
  },
  { description: "OAuth 2.0 authorization server metadata (RFC 8414)" },
);

const protectedResource = ({ request }: { request: Request }) => {
  const base = baseUrlOf(request);
  return { resource: mcpResourceOf(base), authorization_servers: [base], scopes_supported: [...SCOPES], bearer_methods_supported: ["header"], resource_name: "agentbank MCP" };
};
const resourceDocs = answers(docs("OAuth", "The protected resource metadata of /mcp (RFC 9728): the resource to ask a token for and the authorization server", "public"), { 200: ProtectedResource });

const TokenForm = t.Record(t.String({ maxLength: 50 }), t.String({ maxLength: 2000 }), { maxProperties: 20 });

/** The write op the token form asks for, or why the form is refused before anything is read. */
function grantOf(form: Record<string, string>): OAuthError | (() => Op<Tokens | Refused>) {
  const field = (name: string) => ownProperty(form, name);
  const clientId = field("client_id");
  if (!clientId) return new OAuthError("invalid_client", "client_id is required (public clients send it in the form)", 401);
  const resource = field("resource");
  switch (field("grant_type")) {
    case "authorization_code": {
      const [code, codeVerifier, redirectUri] = [field("code"), field("code_verifier"), field("redirect_uri")];
      if (!code || !codeVerifier || !redirectUri) return new OAuthError("invalid_request", "code, code_verifier and redirect_uri are required");
      return () => exchangeCode({ clientId, code, codeVerifier, redirectUri, resource });
    }
    case "refresh_token": {
      const refreshToken = field("refresh_token");
      if (!refreshToken) return new OAuthError("invalid_request", "refresh_token is required");
      return () => refreshGrant({ clientId, refreshToken, resource });
    }
    default:
      return new OAuthError("unsupported_grant_type", "grant_type is authorization_code or refresh_token");
  }
}

const tokenAnswer = (request: Request, outcome: Tokens | Refused) =>
  "refused" in outcome ? oauthError(request, outcome.refused) : Response.json(outcome, { headers: { "cache-control": "no-store", pragma: "no-cache" } });

export const oauthRoutes = new Elysia({ name: "oauth" })
  .use(door)
  .get("/.well-known/oauth-protected-resource", protectedResource, resourceDocs)
  .get("/.well-known/oauth-protected-resource/mcp", protectedResource, { ...resourceDocs, detail: { ...resourceDocs.detail, hide: true } })
  .get(
    "/.well-known/oauth-authorization-server",
    ({ request }) => {
      const base = baseUrlOf(request);
      return {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        scopes_supported: [...SCOPES],
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        // Only the query: RFC 8414's default also names fragment, which this server never answers with.
        response_modes_supported: ["query"],
        authorization_response_iss_parameter_supported: true,
        client_id_metadata_document_supported: true,
      };
    },
    answers(docs("OAuth", "The authorization server's metadata (RFC 8414): its endpoints, PKCE S256, public clients (registered, or by client ID metadata document), iss in authorization responses (RFC 9207)", "public"), { 200: AuthorizationServer }),
  )
  .post(
    "/oauth/register",
    async ({ body, request, server, set, write }) => {
      try {
        const registrant = registrantOf(clientAddressOf(request, server));
        const client = await write(() => registerClient(body, registrant));
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return registeredClientView(client);
      } catch (error) {
        if (error instanceof OAuthError) return oauthError(request, error);
        throw error;
      }
    },
    {
      body: ClientMetadataBody,
      ...answers(
        docs("OAuth", "Register an MCP host (dynamic client registration, RFC 7591): a public client, PKCE only; refusals are 400 with OAuth's error codes (invalid_redirect_uri, invalid_client_metadata); at most 20 a day from one address (429), and a client that has no grant a day later is deleted", "public", ["RATE_LIMIT_EXCEEDED"]),
        { 201: RegisteredClient },
      ),
    },
  )
  .get(
    "/oauth/authorize",
    async ({ request, query, server, set }) => {
      // A metadata document's client_id makes this server fetch a URL anyone chose: counted per address as a public route.
      if (query.client_id !== undefined && isDocumentClientId(query.client_id)) consume(`ip:${clientAddressOf(request, server)}`, config.rateLimitPublic, set.headers as Record<string, string | number>);
      const checked = await checkAuthorization(query, baseUrlOf(request));
      if ("page" in checked) return page(checked.page);
      // The console's session cookie is scoped to /console: consent is asked there.
      return new Response(null, { status: 303, headers: { location: `/console/oauth/consent${new URL(request.url).search}`, "cache-control": "no-store" } });
    },
    { query: AuthorizationQuery, due: ({ query }: DueContext) => applyRequestedClientDue(query), detail: { hide: true } },
  )
  .post(
    "/oauth/token",
    async ({ body, request, write }) => {
      const grant = grantOf(body ?? Object.create(null));
      return grant instanceof OAuthError ? oauthError(request, grant) : tokenAnswer(request, await write(grant));
    },
    { body: t.Optional(TokenForm), detail: { hide: true } },
  );
