// Errors beside their command (issue 34): a route's documented error codes are composed from the lists
// its command and the door export (OUTFLOW_ERRORS beside authorizeOutflow, RELEASE_ERRORS beside
// authorizeRelease, KEY_SPEND_ERRORS beside a key's budgets, ONCE_ERRORS beside the once-only write, the
// scope refusal added for every agent route). This test walks every route of the OpenAPI document and
// fails where a code the route can answer, by the lists the code owns, is not documented: every kind of
// outflow and of release names its routes here, so a new kind without a row fails.
import { describe, expect, test } from "bun:test";
import { ONCE_ERRORS } from "../src/door";
import { KEY_SPEND_ERRORS } from "../src/outflows/budget";
import { OUTFLOW_ERRORS } from "../src/outflows/check";
import { OUTFLOW_KINDS, type OutflowKind } from "../src/outflows/kinds";
import { RELEASE_ERRORS, RELEASES, type ReleaseKind } from "../src/outflows/release";
import { CORRECTION_ERRORS } from "../src/wallets/corrections";
import { openToEveryKey, scopeOfRoute } from "../src/keys/scopes";
import { currentDocument } from "./openapi-client/generate";

/** The routes that start each kind of outflow (the router's path, as the OpenAPI document spells it). */
const OUTFLOW_ROUTES: Record<OutflowKind, string[]> = {
  PAYMENT: ["POST /payments/send"],
  X402: ["POST /x402/pay"],
  BET: ["POST /betting"],
  BET_ACCEPT: ["POST /betting/{betId}/accept"],
  LOAN_OFFER: ["POST /lending/offers"],
  LOAN_BORROW: ["POST /lending/borrow"],
  CONTRACT: ["POST /contracts"],
  SUBSCRIPTION: ["POST /subscriptions"],
  BOOKING: ["POST /bookings"],
  WITHDRAWAL: ["POST /wallets/withdraw"],
};

/** The routes that make each kind of release. */
const RELEASE_ROUTES: Record<ReleaseKind, string[]> = {
  CONTRACT_CONDITION: ["POST /contracts/{id}/fulfill"],
  BET_CONCESSION: ["POST /betting/{betId}/resolve"],
  LOAN_REPAYMENT: ["POST /lending/repay/{loanId}"],
};

type Operation = { security?: Record<string, unknown>[]; parameters?: { $ref?: string }[]; responses: Record<string, { description?: string }> };
const document = (await currentDocument()) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, operation })));
const byRoute = new Map(operations.map(({ route, operation }) => [route, operation]));

/** The codes a route documents (each response's description lists its codes, comma-separated). */
const documented = (operation: Operation) => new Set(Object.entries(operation.responses).flatMap(([status, response]) => (/^[45]/.test(status) ? (response.description ?? "").split(", ") : [])));
/** What `route` fails to document of `codes`: empty when all are there. */
function missing(route: string, codes: readonly string[]): string[] {
  const operation = byRoute.get(route);
  if (!operation) return [`${route}: no such route in the document`];
  const has = documented(operation);
  return codes.filter((code) => !has.has(code)).map((code) => `${route}: ${code}`);
}
const routerPath = (route: string) => route.replace(/\{([^}]+)\}/g, ":$1");
const takesAgentKey = (operation: Operation) => operation.security?.some((scheme) => "agentKey" in scheme) ?? false;
const takesIdempotencyKey = (operation: Operation) => operation.parameters?.some((parameter) => parameter.$ref === "#/components/parameters/IdempotencyKey") ?? false;

describe("every code a route can answer is documented", () => {
  test("every kind of outflow and of release names its routes, and each route exists", () => {
    expect(OUTFLOW_KINDS.filter((kind) => !OUTFLOW_ROUTES[kind]?.length)).toEqual([]);
    expect(Object.keys(RELEASES).filter((kind) => !RELEASE_ROUTES[kind as ReleaseKind]?.length)).toEqual([]);
    const named = [...Object.values(OUTFLOW_ROUTES), ...Object.values(RELEASE_ROUTES)].flat();
    expect(named.filter((route) => !byRoute.has(route))).toEqual([]);
  });

  test("a route that starts an outflow documents the outflow check's errors and the key's", () => {
    expect(OUTFLOW_ERRORS).toEqual(expect.arrayContaining([...KEY_SPEND_ERRORS]));
    expect(Object.values(OUTFLOW_ROUTES).flat().flatMap((route) => missing(route, [...OUTFLOW_ERRORS, "INSUFFICIENT_BALANCE"]))).toEqual([]);
  });

  test("a route that makes a release documents the key's errors, and the brake's where a frozen agent may not make it", () => {
    const expected = (kind: ReleaseKind) => (RELEASES[kind].whileFrozen ? KEY_SPEND_ERRORS : RELEASE_ERRORS);
    expect(Object.entries(RELEASE_ROUTES).flatMap(([kind, routes]) => routes.flatMap((route) => missing(route, expected(kind as ReleaseKind))))).toEqual([]);
  });

  test("an agent route documents the scope refusal, unless every restricted key may call it", () => {
    const agentRoutes = operations.filter(({ operation }) => takesAgentKey(operation));
    expect(agentRoutes.length).toBeGreaterThan(50);
    const problems = agentRoutes.flatMap(({ route, operation }) => {
      const [method, path] = route.split(" ") as [string, string];
      const open = openToEveryKey(method, routerPath(path));
      const says = documented(operation).has("KEY_SCOPE_DENIED");
      return open === says ? [`${route}: ${open ? "open to every key, yet documents" : "misses"} KEY_SCOPE_DENIED (scope: ${scopeOfRoute(method, routerPath(path))})`] : [];
    });
    expect(problems).toEqual([]);
  });

  test("a route takes an Idempotency-Key exactly when it documents its refusal (the door's `once`)", () => {
    const once = operations.filter(({ operation }) => takesIdempotencyKey(operation));
    expect(once.length).toBeGreaterThan(15);
    expect(once.flatMap(({ route }) => missing(route, ONCE_ERRORS))).toEqual([]);
    const claims = operations.filter(({ operation }) => documented(operation).has("IDEMPOTENCY_KEY_REUSED") && !takesIdempotencyKey(operation));
    expect(claims.map(({ route }) => route)).toEqual([]);
  });

  test("every operator route takes an operator key and documents its refusal; the correction documents what the ledger and its Idempotency-Key can answer", () => {
    const operatorRoutes = operations.filter(({ route }) => route.split(" ")[1]!.startsWith("/admin/"));
    expect(operatorRoutes.length).toBeGreaterThan(15);
    const keyless = operatorRoutes.filter(({ operation }) => !operation.security?.some((scheme) => "adminKey" in scheme) || !documented(operation).has("UNAUTHORIZED"));
    expect(keyless.map(({ route }) => route)).toEqual([]);
    expect(missing("POST /admin/agents/{id}/correction", [...CORRECTION_ERRORS, ...ONCE_ERRORS])).toEqual([]);
    expect(takesIdempotencyKey(byRoute.get("POST /admin/agents/{id}/correction")!)).toBe(true);
  });
});
