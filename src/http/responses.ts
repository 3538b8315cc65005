// Response schemas shared by every feature: timestamps, free-form JSON, the pagination envelope, and
// `answers()`, which declares a route's success schema next to the error answers docs() lists.
//
// Elysia validates every answer against the schema of its status (normalize: false: a missing field,
// a wrong type or an unknown field is an error), and a mismatch is a 500, so the OpenAPI document
// cannot drift from what the code returns. Models set additionalProperties: false on every object,
// nested ones too (Elysia itself makes only the top level strict). The check runs where drift is
// caught — tests and LOG_LEVEL=debug — and not in production, where it would cost every answer
// (checkingAnswers).
import { t, type TSchema } from "elysia";
import { TypeRegistry } from "elysia/type-system";
import { Kind, Type, type IntegerOptions, type TUnsafe } from "@sinclair/typebox";
import { config } from "../config";
import { CURRENCIES } from "../money";
import type { docs } from "./models";

// A closed set of strings (a status, a kind) as JSON Schema's own `{ type: "string", enum }`: a union of
// literals would reach the document as anyOf of consts, which the OpenAPI plugin rewrites into an enum
// without the description, and a nullable one into a type that allows null with an enum that does not.
const ENUM_KIND = "StringEnum";
TypeRegistry.Set(ENUM_KIND, (schema: { enum: unknown[] }, value: unknown) => schema.enum.includes(value));

/**
 * One of a fixed set of strings, checked at run time. Its TypeScript type is `string`: the services read
 * these values from text columns and type them so; the run-time check, not the compiler, holds them to
 * the list.
 */
export function Enum(values: readonly [string, ...string[]], options: { description?: string } = {}): TUnsafe<string> {
  return t.Unsafe<string>({ [Kind]: ENUM_KIND, type: "string", enum: [...values], ...options } as never);
}

/** The same, or null (null is one of the enum's values, as JSON Schema needs). */
export function NullableEnum(values: readonly [string, ...string[]], options: { description?: string } = {}): TUnsafe<string | null> {
  return t.Unsafe<string | null>({ [Kind]: ENUM_KIND, type: ["string", "null"], enum: [...values, null], ...options } as never);
}

/** A value or null. (Elysia's t.Nullable adds OpenAPI 3.0's `nullable`, foreign to this 3.1 document.) */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => t.Union([schema, t.Null()], options);

/** A currency code in an answer (models.ts's Currency is for requests). */
export const CurrencyCode = Enum(CURRENCIES, { description: "USDC, USDT (6 decimals), USD, EUR (2), BTC (8)" });

/** An amount in an answer: a JSON number in major units of the currency beside it. */
export const Money = (description = "in major units of `currency`") => t.Number({ description });

/** An instant, as the service writes every one: `Date.toISOString()`, UTC. */
export const Timestamp = (description?: string) =>
  t.String({ format: "date-time", description: description ?? "ISO 8601 time (UTC)" });

/**
 * A whole number. Elysia's t.Integer is for requests: it also accepts a numeric string (and the document
 * shows it as anyOf string/integer); an answer's integer is a JSON integer.
 */
export const Int = (options: IntegerOptions = {}) => Type.Integer(options);

/** A nullable timestamp: null until the event happens. */
export const MaybeTimestamp = (description: string) => Nullable(Timestamp(), { description });

/** A JSON object stored as given (metadata, offers, oracle settings, condition params). */
export const JsonObject = (description: string) => t.Object({}, { additionalProperties: true, description });

/** A strict object: every field listed, no other field allowed. */
export const Model = <P extends Parameters<typeof t.Object>[0]>(properties: P, options: { description: string; examples?: unknown[] }) =>
  t.Object(properties, { additionalProperties: false, ...options });

export const Pagination = Model(
  {
    total: Int({ minimum: 0, description: "how many items match, over all pages" }),
    limit: Int({ minimum: 1, description: "the page size used (the `limit` query parameter, default 20)" }),
    offset: Int({ minimum: 0, description: "how many items were skipped (the `offset` query parameter, default 0)" }),
    hasMore: t.Boolean({ description: "whether items follow this page" }),
    nextAfter: t.Union([t.String(), t.Null()], {
      description: "when items follow, the key of this page's last item: pass it as `after` for the next page (null on the last page)",
    }),
  },
  { description: "Where this page sits in the whole list" },
);

/** The envelope of every list route: `{ data, pagination }`; the example is built from the item's. */
export function Page<T extends TSchema>(item: T, description: string) {
  const example = (item as { examples?: unknown[] }).examples?.[0];
  return Model(
    { data: t.Array(item), pagination: Pagination },
    {
      description,
      ...(example === undefined ? {} : { examples: [{ data: [example], pagination: { total: 1, limit: 20, offset: 0, hasMore: false, nextAfter: null } }] }),
    },
  );
}

// The error answers docs() lists, kept in the document once a route declares `response` (the OpenAPI
// plugin then builds `responses` from it alone). They point at the shared Error component. Elysia does
// not validate an error answer against `response` (errors go through onError), so this kind only
// documents: its check accepts anything.
const ERROR_KIND = "DocumentedError";
TypeRegistry.Set(ERROR_KIND, () => true);

type Detail = ReturnType<typeof docs>;

/**
 * Whether answers are checked against their schemas: on under the test harness (TEST_CLOCK, set by
 * agentbank/testing and every test server), under `bun test` (NODE_ENV=test) and with LOG_LEVEL=debug;
 * off otherwise. A wrong answer is a bug that the suite finds; in production the check would only turn
 * it into a 500, at ~10 µs per answer (docs/performance.md).
 */
export const checkingAnswers = (): boolean => config?.testClock === true || config?.logLevel === "debug" || process.env.NODE_ENV === "test";

/**
 * Elysia skips the check of a schema marked `noValidate`. The mark is a getter, read when Elysia
 * compiles a route (after the configuration is loaded), and not enumerable, so that it never reaches
 * the OpenAPI document.
 */
function checkedOnlyWhenChecking(schema: TSchema): TSchema {
  if (!Object.hasOwn(schema, "noValidate")) Object.defineProperty(schema, "noValidate", { get: () => !checkingAnswers(), enumerable: false });
  return schema;
}

/**
 * A route's `detail` and `response`: the success schema(s) given, plus docs()'s error answers.
 * Use as `{ ...answers(docs(...), { 201: Payment }) }`. The type is the success schemas only, so
 * TypeScript checks the handler's return against them.
 */
export function answers<const S extends Record<number, TSchema>>(detail: Detail, success: S): { detail: Detail; response: S } {
  const errors: Record<string, TSchema> = {};
  for (const [status, answer] of Object.entries(detail.responses)) {
    errors[status] = t.Unsafe({
      [Kind]: ERROR_KIND,
      description: answer.description,
      $ref: answer.content["application/json"]!.schema.$ref,
    } as never);
  }
  for (const schema of Object.values(success)) checkedOnlyWhenChecking(schema);
  return { detail, response: { ...errors, ...success } as S };
}
