// `t` schemas shared by every feature: ids, money, paging, the error body.
import { t } from "elysia";
import { CURRENCIES } from "../money";
import { errorStatus, type ErrorCode } from "../errors";

export const Uuid = t.String({ format: "uuid", description: "UUID" });
export const IdParam = t.Object({ id: Uuid });

// A union of literals, not t.UnionEnum: Elysia gives UnionEnum its first value as a default, which would
// turn a missing currency into USDC.
export const Currency = t.Union(
  CURRENCIES.map((code) => t.Literal(code)),
  { description: "USDC, USDT (6 decimals), USD, EUR (2), BTC (8)" },
);

/** An amount in major units; precision per currency is checked when it is converted (money.ts). */
export const Amount = (options: { minimum?: number; description?: string } = {}) =>
  t.Number({ exclusiveMinimum: 0, maximum: 1e9, ...options });

export const Metadata = t.Record(t.String({ maxLength: 100 }), t.Any(), { maxProperties: 50, description: "free-form object" });

export const PageQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
});

export function page<T>(data: T[], total: number, limit: number, offset: number) {
  return { data, pagination: { total, limit, offset, hasMore: offset + data.length < total } };
}

type Loaded<T> = { data: T[]; total: number };

/** A list route's answer: the defaults of `limit` and `offset`, then the pagination envelope. */
export async function paged<T>(query: { limit?: number; offset?: number }, load: (limit: number, offset: number) => Loaded<T> | Promise<Loaded<T>>) {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const { data, total } = await load(limit, offset);
  return page(data, total, limit, offset);
}

type Auth = "agent" | "owner" | "admin" | "public";

const SECURITY: Record<Auth, Record<string, string[]>[]> = {
  agent: [{ agentKey: [] }],
  owner: [{ ownerKey: [] }],
  admin: [{ adminKey: [] }],
  public: [],
};

/** OpenAPI detail for a route: summary, tag, who may call it and the errors it can answer. */
export function docs(tag: string, summary: string, auth: Auth, errors: ErrorCode[] = []) {
  const codes: ErrorCode[] = [...errors];
  if (auth !== "public") codes.push("UNAUTHORIZED");
  if (auth === "agent") codes.push("RATE_LIMIT_EXCEEDED");
  codes.push("VALIDATION_ERROR");
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
