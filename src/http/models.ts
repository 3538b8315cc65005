// `t` schemas shared by every feature: ids, money, paging, the error body.
import { t } from "elysia";
import { TypeRegistry } from "elysia/type-system";
import { Kind, type TString } from "@sinclair/typebox";
import type { PageWindow } from "../db";
import { valueDepth } from "../json";
import { CURRENCIES } from "../money";
import { errorStatus, type ErrorCode } from "../errors";
import { type AgentId, type Id, type LoanId } from "../ids";

export const Uuid = t.String({ format: "uuid", description: "UUID" });
export const IdParam = t.Object({ id: Uuid });
/** An id from outside, checked by `schema` and from there on typed as its kind's (src/ids.ts). */
const IdRef = <I extends Id<string>>(schema: TString) => t.Unsafe<I>(schema);
/** An agent's id from outside: a UUID. */
export const AgentIdRef = (options: { description?: string } = {}) => IdRef<AgentId>(t.String({ format: "uuid", description: "UUID", ...options }));
/** A loan's id from outside (loan_…, as the service makes them; an unknown one is a 404). */
export const LoanIdRef = () => IdRef<LoanId>(t.String({ minLength: 1, maxLength: 64 }));
/** `:id`, an agent's. */
export const AgentIdParam = t.Object({ id: AgentIdRef() });

// A union of literals, not t.UnionEnum: Elysia gives UnionEnum its first value as a default, which would
// turn a missing currency into USDC.
export const Currency = t.Union(
  [t.Literal(CURRENCIES[0]), t.Literal(CURRENCIES[1]), t.Literal(CURRENCIES[2]), t.Literal(CURRENCIES[3]), t.Literal(CURRENCIES[4])],
  { description: "USDC, USDT (6 decimals), USD, EUR (2), BTC (8)" },
);

/** An amount in major units; precision per currency is checked when it is converted (money.ts). */
export const Amount = (options: { minimum?: number; description?: string } = {}) =>
  // One lower bound, not two (exclusiveMinimum 0 and minimum 0.01 read as a mixed range to linters).
  t.Number({ ...(options.minimum === undefined ? { exclusiveMinimum: 0 } : {}), maximum: 1e9, ...options });

type FreeFormLimits = { maxBytes: number; maxDepth: number; maxProperties?: number; anyJson?: boolean };
const MAX_KEY_LENGTH = 100;

/** Whether a free-form value stays within its limits: shape, keys, nesting depth, serialized size. */
function withinLimits(limits: FreeFormLimits, value: unknown): boolean {
  if (!limits.anyJson) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    if (keys.length > (limits.maxProperties ?? Infinity) || keys.some((key) => key.length > MAX_KEY_LENGTH)) return false;
  }
  if (valueDepth(value) > limits.maxDepth) return false;
  return Buffer.byteLength(JSON.stringify(value) ?? "") <= limits.maxBytes;
}

/** Any JSON value, spelled as the types it may have: a schema without `type` reads as "anything" to few and as an error to some (MCP clients). */
export const ANY_JSON_TYPES = [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "object", additionalProperties: true }, { type: "array" }, { type: "null" }];

TypeRegistry.Set("FreeForm", (schema: { "x-limits": FreeFormLimits }, value: unknown) => withinLimits(schema["x-limits"], value));

/**
 * A free-form JSON value (metadata, offers, oracle settings, a resource body) with limits on every
 * axis, so that what an agent stores can never cost more than milliseconds to serialize or walk.
 */
export function FreeForm<T = Record<string, unknown>>(limits: FreeFormLimits & { description: string }) {
  const { description, ...bounds } = limits;
  const shape = bounds.anyJson
    ? "any JSON value"
    : `a JSON object of at most ${bounds.maxProperties} keys (each at most ${MAX_KEY_LENGTH} characters)`;
  const rule = `${shape}, nested at most ${bounds.maxDepth} levels and at most ${bounds.maxBytes} bytes as JSON`;
  return t.Unsafe<T>({
    [Kind]: "FreeForm",
    ...(bounds.anyJson ? { anyOf: ANY_JSON_TYPES } : { type: "object", additionalProperties: true, maxProperties: bounds.maxProperties }),
    description: `${description}: ${rule}`,
    "x-limits": bounds,
    // What validation errors say of it (src/http/validation.ts).
    "x-rule": `must be ${rule}`,
  } as never);
}

export const Metadata = FreeForm({ description: "free-form object", maxProperties: 50, maxDepth: 10, maxBytes: 16 * 1024 });

export const PageQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
  // Any id a list returns (UUIDs, bet_…, lo_…, svc_…): whether it is one of this caller's items is the list's to answer.
  after: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 64,
      pattern: "^[A-Za-z0-9_-]+$",
      description: "the id of the last item of the previous page (its `pagination.nextAfter`): this page starts with the item that follows it",
      "x-rule": "must be the id of an item of this list (letters, digits, _ and -; at most 64 characters)",
    }),
  ),
});

type Loaded<T> = { data: T[]; total: number; more: boolean };

/** The pagination envelope; `nextAfter` is the last item's key when more follow. What else the list answers (the approvals' `pending`) follows it. */
export function page<T, L extends Loaded<T>>(loaded: L & Loaded<T>, window: PageWindow, key: (item: T) => string = (item) => (item as { id: string }).id) {
  const { data, total, more, ...extra } = loaded;
  const last = data.at(-1);
  return {
    data,
    pagination: {
      total,
      limit: window.limit,
      offset: window.offset,
      hasMore: more,
      nextAfter: more && last !== undefined ? key(last) : null,
    },
    ...extra,
  };
}

type PageParams = { limit?: number; offset?: number; after?: string };

/** The page a list route was asked for, with the defaults of `limit` and `offset`. */
export const pageWindow = (query: PageParams): PageWindow => ({ limit: query.limit ?? 20, offset: query.offset ?? 0, after: query.after });

/** A list route's answer: the page asked for, in the pagination envelope. */
export async function paged<T, L extends Loaded<T>>(query: PageParams, load: (window: PageWindow) => Promise<L & Loaded<T>>, key?: (item: T) => string) {
  const window = pageWindow(query);
  return page<T, L>(await load(window), window, key);
}

/** Who may call a route; "anyKey": an agent route that every restricted key may call, whatever its scopes. */
type Auth = "agent" | "anyKey" | "owner" | "admin" | "public";

const SECURITY: Record<Auth, Record<string, string[]>[]> = {
  agent: [{ agentKey: [] }],
  anyKey: [{ agentKey: [] }],
  owner: [{ ownerKey: [] }],
  admin: [{ adminKey: [] }],
  public: [],
};

/** OpenAPI detail for a route: summary, tag, who may call it and the errors it can answer. */
export function docs(tag: string, summary: string, auth: Auth, errors: readonly ErrorCode[] = []) {
  const codes: ErrorCode[] = [...errors];
  if (auth !== "public") codes.push("UNAUTHORIZED");
  // An agent or owner route refuses a valid key of the other kind (src/auth/keys.ts).
  if (auth === "agent" || auth === "anyKey" || auth === "owner") codes.push("FORBIDDEN");
  if (auth === "agent" || auth === "anyKey") codes.push("RATE_LIMIT_EXCEEDED");
  // The door refuses a restricted key outside the route's scopes (src/keys/scopes.ts).
  if (auth === "agent") codes.push("KEY_SCOPE_DENIED");
  // On PostgreSQL any statement may meet a lock held past lock_timeout (src/db/postgres.ts).
  codes.push("VALIDATION_ERROR", "SERVICE_BUSY");
  const responses: Record<string, { description: string; content: Record<string, { schema: { $ref: string } }> }> = {};
  for (const code of new Set(codes)) {
    const status = String(errorStatus[code]);
    const existing = responses[status];
    responses[status] = {
      description: existing ? `${existing.description}, ${code}` : code,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return { tags: [tag], summary, security: SECURITY[auth], responses };
}
