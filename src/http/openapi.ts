// The last touches on the generated OpenAPI document, so that client generators and linters take it as
// it is: JSON-only request bodies (the only kind the service parses), camelCase operationIds, the
// error codes as an enum, the headers the service reads and sets (Idempotency-Key, Request-Id,
// RateLimit-*, Retry-After), servers and license. (A wrong method on any path is 405 with Allow: a
// property of paths, not of an operation.)
import { errorStatus } from "../errors";

export type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; anyOf?: JsonSchema[]; format?: string; [key: string]: unknown };

/**
 * A TypeBox schema as plain JSON Schema: symbols dropped, and the numeric-string alternative Elysia
 * adds to query integers folded back to the number.
 */
export function plainSchema(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (_key, value) => {
    if (value && typeof value === "object" && Array.isArray(value.anyOf)) {
      const numeric = value.anyOf.filter((option: JsonSchema) => !(option.type === "string" && (option.format === "integer" || option.format === "numeric")));
      if (numeric.length === 1 && numeric.length < value.anyOf.length) {
        const { anyOf: _, ...rest } = value;
        return { ...rest, ...numeric[0] };
      }
    }
    return value;
  }) as JsonSchema;
}


/** Request body schemas by "METHOD /path/{param}": the plugin drops them for routes with a parse hook (all of ours). */
const bodies = new Map<string, unknown>();

export function describeRoutes(routes: { method: string; path: string; hooks: { body?: unknown } }[]): void {
  for (const { method, path, hooks } of routes) {
    if (hooks.body) bodies.set(`${method.toLowerCase()} ${path.replace(/:([^/]+)/g, "{$1}")}`, hooks.body);
  }
}

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: unknown }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
};
type Document = {
  info: Record<string, unknown>;
  servers?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, unknown>; headers?: Record<string, unknown>; parameters?: Record<string, unknown> };
};

const header = (description: string, schema: Record<string, unknown> = { type: "string" }) => ({ description, schema });
const HEADERS = {
  RequestId: header("Identifies this request in the service's log; also in error bodies as requestId. Send your own in Request-Id to correlate."),
  RateLimitLimit: header("Requests allowed per window for this agent", { type: "integer" }),
  RateLimitRemaining: header("Requests left in the current window", { type: "integer" }),
  RateLimitReset: header("Seconds until the window resets", { type: "integer" }),
  RetryAfter: header("Seconds to wait before trying again", { type: "integer" }),
  IdempotentReplayed: header("true when this is the stored answer of an earlier request with the same Idempotency-Key", { type: "string", enum: ["true"] }),
};
const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "Any unique string (1 to 255 visible ASCII characters), kept 24 h per agent. The same key with the same body (fields in any order) replays the first answer with Idempotent-Replayed: true; with another body it is 409 IDEMPOTENCY_KEY_REUSED.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

/** "POST /payments/:id/accept" → "postPaymentsByIdAccept". */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith("{") || segment.startsWith(":") ? ["by", segment.replace(/[{}:]/g, "")] : segment.split(/[-_]/)));
  return method.toLowerCase() + words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
}

export function polishDocument(document: Document): Document {
  document.servers = [{ url: "/", description: "this agentbank service" }];
  document.info.license = { name: "Proprietary: the operator's terms", identifier: "LicenseRef-agentbank-operator" };
  document.components.headers = { ...document.components.headers, ...HEADERS };
  document.components.parameters = { ...document.components.parameters, IdempotencyKey: IDEMPOTENCY_KEY };
  document.components.schemas = {
    ...document.components.schemas,
    Error: {
      type: "object",
      required: ["error", "message"],
      properties: {
        error: { type: "string", enum: Object.keys(errorStatus), description: "A stable code: branch on it" },
        message: { type: "string", description: "What went wrong and what to change, for a person or a model" },
        details: { description: "Per-field problems of a VALIDATION_ERROR, or the figures of an INSUFFICIENT_BALANCE" },
        requestId: { type: "string", description: "The Request-Id of this request" },
      },
    },
  };
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operation.operationId = operationIdOf(method, path);
      const body = bodies.get(`${method} ${path}`);
      if (operation.requestBody && body) operation.requestBody.content = { "application/json": { schema: plainSchema(body) } };
      for (const parameter of operation.parameters ?? []) if (parameter.schema) parameter.schema = plainSchema(parameter.schema);
      const byAgent = operation.security?.some((scheme) => "agentKey" in scheme) ?? false;
      // A route declared `once` (src/door) has the header in its schema: documented once, as IdempotencyKey.
      const idempotent = operation.parameters?.some((parameter) => parameter.in === "header" && parameter.name?.toLowerCase() === "idempotency-key") ?? false;
      if (idempotent) operation.parameters = [...operation.parameters!.filter((parameter) => parameter.name?.toLowerCase() !== "idempotency-key"), { $ref: "#/components/parameters/IdempotencyKey" } as never];
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const headers: Record<string, unknown> = { "Request-Id": ref("RequestId") };
        if (byAgent) Object.assign(headers, { "RateLimit-Limit": ref("RateLimitLimit"), "RateLimit-Remaining": ref("RateLimitRemaining"), "RateLimit-Reset": ref("RateLimitReset") });
        if (status === "429" || response.description?.includes("SERVICE_BUSY")) headers["Retry-After"] = ref("RetryAfter");
        if (idempotent && status.startsWith("2")) headers["Idempotent-Replayed"] = ref("IdempotentReplayed");
        response.headers = { ...response.headers, ...headers };
        const json = response.content?.["application/json"] as { schema?: unknown } | undefined;
        if (json?.schema) json.schema = plainSchema(json.schema);
      }
    }
  }
  return document;
}
