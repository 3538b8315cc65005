// Validation errors a model can correct itself from: each names the field, says what is allowed
// (the values of an enum, the range of a number, the format of a string) and what was sent.
import { ValueErrorType } from "@sinclair/typebox/errors";

type Schema = {
  type?: string;
  anyOf?: Schema[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  properties?: Record<string, Schema>;
  "x-rule"?: unknown;
};
type Issue = { type?: number; path?: string; value?: unknown; schema?: Schema; summary?: string; message?: string };

const FORMATS: Record<string, string> = { uuid: "a UUID", email: "an e-mail address", uri: "an http(s) URL", "date-time": "an ISO 8601 time", date: "a date (YYYY-MM-DD)" };

function range(schema: Schema): string {
  const low = schema.exclusiveMinimum !== undefined ? `greater than ${schema.exclusiveMinimum}` : schema.minimum !== undefined ? `at least ${schema.minimum}` : null;
  const high = schema.exclusiveMaximum !== undefined ? `less than ${schema.exclusiveMaximum}` : schema.maximum !== undefined ? `at most ${schema.maximum}` : null;
  if (schema.minimum !== undefined && schema.maximum !== undefined) return ` from ${schema.minimum} to ${schema.maximum}`;
  return [low, high].filter(Boolean).map((part) => ` ${part}`).join(" and");
}

/** What a schema allows, in words: "one of USDC, USDT", "a number greater than 0 and at most 1000000000", ... */
export function allowed(schema: Schema | undefined): string {
  if (!schema) return "a valid value";
  if (typeof schema["x-rule"] === "string") return schema["x-rule"].replace(/^must be /, "");
  if (schema.anyOf) {
    // Elysia lets a query integer arrive as a numeric string: describe the number.
    const numeric = schema.anyOf.find((option) => option.type === "integer" || option.type === "number");
    if (numeric && schema.anyOf.every((option) => option.type === "string" || option === numeric)) return allowed({ ...numeric, ...pick(schema) });
    const literals = schema.anyOf.filter((option) => option.const !== undefined).map((option) => String(option.const));
    const others = schema.anyOf.filter((option) => option.const === undefined && option.type !== "null").map(allowed);
    const nullable = schema.anyOf.some((option) => option.type === "null");
    const choices = [...(literals.length ? [`one of ${literals.join(", ")}`] : []), ...others];
    return `${choices.join(" or ")}${nullable ? " or null" : ""}`;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case "integer":
      return `a whole number${range(schema)}`;
    case "number":
      return `a number${range(schema)}`;
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array":
      return `an array${schema.maxItems !== undefined ? ` of at most ${schema.maxItems} items` : ""}`;
    case "object":
      return `an object${schema.maxProperties !== undefined ? ` of at most ${schema.maxProperties} keys` : ""}`;
    case "string": {
      if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
      const length =
        schema.minLength !== undefined && schema.maxLength !== undefined
          ? ` of ${schema.minLength} to ${schema.maxLength} characters`
          : schema.maxLength !== undefined
            ? ` of at most ${schema.maxLength} characters`
            : "";
      return `a string${length}${schema.pattern ? ` matching ${schema.pattern}` : ""}`;
    }
    default:
      return "a valid value";
  }
}

const pick = (schema: Schema) => Object.fromEntries(Object.entries(schema).filter(([key]) => ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].includes(key)));

const shown = (value: unknown) => {
  const text = JSON.stringify(value);
  return text === undefined ? "nothing" : text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

export type FieldProblem = { field: string; message: string };

/** The names this API gives the other agent of a request, one per route: a caller who learnt one tries it on another. */
const OTHER_AGENT_NAMES = ["toAgentId", "recipientId", "counterpartyId", "agentId"];

/** The field among `fields` that the unknown `name` is this API's other name for, if there is exactly one. */
export function meantField(name: string, fields: string[]): string | null {
  if (!OTHER_AGENT_NAMES.includes(name)) return null;
  const meant = fields.filter((field) => OTHER_AGENT_NAMES.includes(field));
  return meant.length === 1 ? meant[0]! : null;
}

/**
 * One problem per field, in the order TypeBox found them, except that a field sent under another
 * route's name comes first (it is the mistake; the "required" problem follows from it). `where` names a
 * field TypeBox did not.
 */
export function fieldProblems(issues: Issue[], where: string | null): FieldProblem[] {
  const problems = new Map<string, string>();
  const misnamed = new Set<string>();
  for (const issue of issues) {
    const field = issue.path ? issue.path.slice(1).replaceAll("/", ".") : (where ?? "body");
    if (problems.has(field)) continue;
    if (issue.type === ValueErrorType.ObjectAdditionalProperties) {
      const parent = issues.find((other) => other.schema?.properties)?.schema ?? issue.schema;
      const fields = Object.keys(parent?.properties ?? {});
      const meant = meantField(field.split(".").at(-1)!, fields);
      if (meant) misnamed.add(field);
      problems.set(field, meant ? `unknown field ${field}; this route takes ${meant}` : `${field} is not a field of this request${fields.length ? ` (fields: ${fields.join(", ")})` : ""}`);
    } else if (issue.type === ValueErrorType.ObjectRequiredProperty) {
      problems.set(field, `${field} is required: ${allowed(issue.schema)}`);
    } else {
      problems.set(field, `${field} must be ${allowed(issue.schema)} (got ${shown(issue.value)})`);
    }
  }
  return [...problems].sort(([a], [b]) => Number(misnamed.has(b)) - Number(misnamed.has(a))).map(([field, message]) => ({ field, message }));
}
