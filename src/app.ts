// The Elysia app: plumbing first (errors, limits, logs, docs), then one plugin per feature.
import { Elysia } from "elysia";
import { operatorApi } from "./admin/routes";
import { agentRoutes } from "./profile/routes";
import { keyRoutes } from "./profile/keys-routes";
import { chainWalletRoutes } from "./chain/routes";
import { bettingRoutes } from "./betting/routes";
import { consoleNotFound } from "./console/not-found";
import { consoleRoutes } from "./console/routes";
import { operatorConsoleRoutes } from "./operator-console/routes";
import { refreshTestClock } from "./clock";
import { config } from "./config";
import { contractRoutes } from "./contracts/routes";
import { apiDocs } from "./http/docs";
import { describeRoutes } from "./http/openapi";
import { MAX_BODY_BYTES, parseBody } from "./http/body";
import { answerUnknownAddressesWith, errorHandler } from "./http/errors";
import { healthRoutes } from "./http/health";
import { homeRoutes } from "./console/home";
import { lifecycle } from "./http/lifecycle";
import { assertMethodOfExactPath, learnRoutes } from "./http/methods";
import { pathOf, requestLog } from "./http/log";
import { clientAddressOf, consume } from "./auth/rate-limit";
import { lendingRoutes } from "./lending/routes";
import { llmsRoutes } from "./mcp/llms";
import { mcpRoutes } from "./mcp/routes";
import type { HttpMetrics } from "./metrics/http";
import type { MetricsRoute } from "./metrics/serve";
import { quoteRoutes, serviceRoutes } from "./marketplace/routes";
import { registrationRoutes } from "./profile/registration-routes";
import { messagingRoutes } from "./messaging/routes";
import { oauthRoutes } from "./oauth/routes";
import { consentRoutes } from "./console/consent";
import { negotiationRoutes } from "./negotiations/routes";
import { ownerRoutes } from "./owners/routes";
import { paymentRoutes } from "./payments/routes";
import { subscriptionRoutes } from "./subscriptions/routes";
import { walletRoutes } from "./wallets/routes";
import { webhookRoutes } from "./webhooks/routes";
import { x402Routes } from "./x402/routes";
import { x402ChannelRoutes } from "./x402/batch/routes";
import { facilitatorRoutes } from "./x402/facilitator/routes";

/** Bun's own cut-off (a bare 413); parseBody answers the contract's 413 from MAX_BODY_BYTES up to it. */
const HARD_BODY_LIMIT_BYTES = 2 * MAX_BODY_BYTES;

/** Public routes are limited per client address; /health and the docs are not limited. */
const PUBLIC_LIMITED: [string, RegExp][] = [
  ["POST", /^\/agents\/register$/],
  ["GET", /^\/agents\/[^/]+\/reputation$/],
  ["GET", /^\/services\/[^/]+$/],
  ["POST", /^\/oauth\/(register|token)$/],
  // ADMIN_API_KEY may be a phrase a person chose: its guesses through the console's sign-in are counted.
  ["POST", /^\/operator\/login$/],
];

export type App = ReturnType<typeof createApp>;

/** What serve() mounts when metrics are configured (src/metrics, loaded only then). */
export type MetricsPlugins = { http: HttpMetrics; route: MetricsRoute | null };

export function createApp(metrics: MetricsPlugins | null = null) {
  answerUnknownAddressesWith("/console", consoleNotFound);
  // normalize: false makes unknown fields a 400 instead of silently dropping them, and stops Elysia
  // from coercing values (it would turn an array or a string into an object).
  const app = new Elysia({ normalize: false, serve: { maxRequestBodySize: HARD_BODY_LIMIT_BYTES } })
    .use(requestLog)
    // Only where metrics are served: a service without them does no per-request work for them.
    .use(metrics?.http ?? (new Elysia({ name: "http-metrics" }) as unknown as HttpMetrics))
    .use(errorHandler)
    .use(lifecycle)
    .onRequest(({ request, server, set }) => {
      const path = pathOf(request.url);
      assertMethodOfExactPath(request.method, path);
      if (PUBLIC_LIMITED.some(([method, pattern]) => method === request.method && pattern.test(path))) {
        consume(`ip:${clientAddressOf(request, server)}`, config.rateLimitPublic, set.headers as Record<string, string | number>);
      }
    })
    // Instances sharing PostgreSQL share the test clock: take up another instance's advance (test only;
    // an async hook on every request costs every request, so it exists only where it is needed).
    .onRequest(config.testClock && config.databaseUrl ? () => refreshTestClock() : () => {})
    .onParse({ as: "global" }, ({ request, path }, contentType) => parseBody(request, contentType, path))
    .use(apiDocs)
    .use(homeRoutes)
    .use(healthRoutes)
    .use(llmsRoutes)
    .use(consoleRoutes)
    .use(operatorConsoleRoutes)
    .use(consentRoutes)
    .use(oauthRoutes)
    .use(registrationRoutes)
    .use(agentRoutes)
    .use(keyRoutes)
    .use(webhookRoutes)
    .use(messagingRoutes)
    .use(negotiationRoutes)
    .use(ownerRoutes)
    .use(paymentRoutes)
    .use(walletRoutes)
    .use(chainWalletRoutes)
    .use(x402Routes)
    .use(x402ChannelRoutes)
    .use(facilitatorRoutes)
    .use(lendingRoutes)
    .use(bettingRoutes)
    .use(contractRoutes)
    .use(subscriptionRoutes)
    .use(serviceRoutes)
    .use(quoteRoutes)
    // The operator's routes: each feature's admin-routes.ts (src/admin/routes.ts).
    .use(operatorApi);
  // The MCP endpoint calls the routes above in-process, so it is added once they all exist.
  app.use(mcpRoutes(app));
  // GET /metrics on this port only with METRICS_TOKEN (src/metrics/serve.ts); without it, 404 like any unknown path.
  if (metrics?.route) app.use(metrics.route);
  learnRoutes(app.routes);
  describeRoutes(app.routes);
  return app;
}

