// Binds each MCP tool to its route: the tool's input schema is the route's own params, query and body
// schemas merged into one object (plus idempotencyKey where the route honours Idempotency-Key), its
// output schema the route's success response. Nothing is declared twice: a route's schema change is
// the tool's.
import { invalid, type ApiError } from "../errors";
import { plainSchema, type JsonSchema } from "../http/openapi";
import { meantField } from "../http/validation";
import { KEY_PATTERN, validateKey } from "../idempotency/idempotency";
import { dictionary, ownProperty } from "../json";
import type { ToolSpec } from "./tools";

/** The part of an Elysia route the catalogue reads. */
export type RouteInfo = {
  method: string;
  path: string;
  hooks: { params?: unknown; query?: unknown; body?: unknown; headers?: unknown; standaloneValidator?: { headers?: unknown }[]; response?: unknown };
};

export type Tool = ToolSpec & {
  inputSchema: JsonSchema & { type: "object" };
  outputSchema: (JsonSchema & { type: "object" }) | null;
  /** Which argument goes where. */
  params: string[];
  query: string[];
  body: string[];
  idempotent: boolean;
};

const IDEMPOTENCY_KEY: JsonSchema = {
  type: "string",
  minLength: 1,
  maxLength: 255,
  pattern: KEY_PATTERN.source,
  description: "Any unique string (a UUID is fine). Retrying with the same key applies the call once and replays its first answer.",
};

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
/** Keywords that describe a value rather than constrain it: they stay beside the anyOf. */
const ANNOTATIONS = new Set(["title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly"]);

/**
 * A route's schema as every MCP client reads it: a `type` array (JSON Schema's shorthand for a union,
 * which some clients refuse) becomes anyOf one typed option per type, each with the constraints (an
 * enum loses its null: the null option allows it).
 */
function toolSchema(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(plainSchema(schema)), (_key, value) => {
    if (!Array.isArray(value?.type) || !value.type.every((type: unknown) => JSON_TYPES.has(type as string))) return value;
    const annotations: Record<string, unknown> = {};
    const constraints: Record<string, unknown> = {};
    for (const [key, keyword] of Object.entries(value as Record<string, unknown>)) {
      if (key !== "type") (ANNOTATIONS.has(key) || key.startsWith("x-") ? annotations : constraints)[key] = keyword;
    }
    if (Array.isArray(constraints.enum)) constraints.enum = constraints.enum.filter((item) => item !== null);
    return { ...annotations, anyOf: (value.type as string[]).map((type) => (type === "null" ? { type } : { ...constraints, type })) };
  }) as JsonSchema;
}

const objectParts = (schema: unknown) => {
  const plain = schema ? toolSchema(schema) : null;
  return { properties: plain?.properties ?? {}, required: plain?.required ?? [] };
};

/** A route declared `once` (src/door) takes the Idempotency-Key header (the door's schema, beside the route's own): its tool takes the key as an argument. */
const takesIdempotencyKey = ({ hooks }: RouteInfo) =>
  [hooks.headers, ...(hooks.standaloneValidator ?? []).map((validator) => validator.headers)].some((schema) => "idempotency-key" in objectParts(schema).properties);

/** The route's success answer; a route with two (201, or 202 when the owner must approve) answers either. */
function successSchema(route: RouteInfo): (JsonSchema & { type: "object" }) | null {
  const responses = route.hooks.response as Record<string, unknown> | undefined;
  if (!responses || typeof responses !== "object") return null;
  const schemas = Object.keys(responses)
    .filter((code) => code.startsWith("2"))
    .map((code) => toolSchema(responses[code]))
    .filter((schema): schema is JsonSchema & { type: "object" } => schema?.type === "object");
  if (schemas.length <= 1) return schemas[0] ?? null;
  return { type: "object", anyOf: schemas };
}

/** The tools whose routes exist, with their schemas; a tool naming a missing route is a programming error. */
export function buildCatalogue(specs: ToolSpec[], routes: RouteInfo[]): Tool[] {
  return specs.map((spec) => {
    const route = routes.find((candidate) => candidate.method === spec.method && candidate.path === spec.path);
    if (!route) throw new Error(`mcp: tool ${spec.name} names a route that does not exist: ${spec.method} ${spec.path}`);
    const params = objectParts(route.hooks.params);
    const query = objectParts(route.hooks.query);
    const body = objectParts(route.hooks.body);
    const idempotent = takesIdempotencyKey(route);
    const properties: Record<string, JsonSchema> = { ...params.properties, ...query.properties, ...body.properties };
    const names = [...Object.keys(params.properties), ...Object.keys(query.properties), ...Object.keys(body.properties)];
    if (new Set(names).size !== names.length) throw new Error(`mcp: tool ${spec.name} has an argument in two places`);
    if (idempotent) properties.idempotencyKey = IDEMPOTENCY_KEY;
    const required = [...Object.keys(params.properties), ...query.required, ...body.required];
    return {
      ...spec,
      inputSchema: { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false },
      outputSchema: successSchema(route),
      params: Object.keys(params.properties),
      query: Object.keys(query.properties),
      body: Object.keys(body.properties),
      idempotent,
    };
  });
}

export type ApiRequest = { method: string; path: string; body?: unknown; headers: Record<string, string> };

/** The API as the caller: what the tools, resources and prompts read and do, always with the caller's key. */
export type ApiCall = (request: ApiRequest) => Promise<{ status: number; body: unknown }>;

/** Why the caller may not call a tool's or a resource's route (a restricted key outside its scopes), or null. */
export type Refusal = (route: { method: string; path: string }) => ApiError | null;

const TYPE_NAMES: Record<string, string> = { string: "a string", integer: "an integer", number: "a number", boolean: "true or false" };

const shown = (value: unknown) => (JSON.stringify(value) ?? String(value)).slice(0, 60);

/** The JSON types a path or query argument's schema allows (its own type, or its alternatives'). */
function scalarTypes(schema: JsonSchema | undefined): string[] {
  const own = schema?.type === undefined ? [] : [schema.type].flat();
  const alternatives = (schema?.anyOf ?? []).flatMap((option) => scalarTypes(option));
  return [...new Set([...own, ...alternatives])].filter((type) => type in TYPE_NAMES);
}

/** A path or query argument as the text the route receives; a value of another type than its schema's is refused, not coerced. */
function asText(tool: Tool, name: string, value: unknown): string {
  const declared = scalarTypes(tool.inputSchema.properties?.[name]);
  const types = declared.length > 0 ? declared : ["string"];
  const type = typeof value === "number" && Number.isInteger(value) ? "integer" : typeof value;
  const accepted = types.includes(type) || (type === "integer" && types.includes("number"));
  if (!accepted) throw invalid(`${name} must be ${types.map((candidate) => TYPE_NAMES[candidate]).join(" or ")} (got ${shown(value)})`);
  return String(value);
}

/** A path segment: "." and ".." would move the request to another route. */
function pathSegment(tool: Tool, name: string, value: unknown): string {
  if (value === undefined) throw invalid(`${name} is required`);
  const text = asText(tool, name, value);
  if (text === "" || text === "." || text === "..") throw invalid(`${name} must be an id (got ${shown(value)})`);
  return encodeURIComponent(text);
}

/**
 * The HTTP request a tool call makes: path parameters substituted, the rest as query string or JSON
 * body. Arguments follow the tool's schema: one it does not name, a path or query value of another type,
 * or an idempotencyKey that is not a valid key throws 400 (a tool error) — nothing is dropped or coerced;
 * the route checks the rest as it checks any request.
 */
export function requestFor(tool: Tool, args: Record<string, unknown>): ApiRequest {
  const properties = tool.inputSchema.properties ?? {};
  for (const name of Object.keys(args)) {
    if (Object.hasOwn(properties, name)) continue;
    const meant = meantField(name, Object.keys(properties));
    throw invalid(meant ? `unknown argument ${name}; ${tool.name} takes ${meant}` : `${name.slice(0, 60)} is not an argument of ${tool.name}; it takes ${Object.keys(properties).join(", ") || "none"}`);
  }
  // Argument names are the caller's: read as own properties only, copied into a body without a prototype.
  const arg = (name: string) => ownProperty(args, name);
  let path = tool.path;
  for (const name of tool.params) path = path.replace(`:${name}`, pathSegment(tool, name, arg(name)));
  const search = new URLSearchParams();
  for (const name of tool.query) if (arg(name) !== undefined) search.set(name, asText(tool, name, arg(name)));
  const body = dictionary<unknown>();
  for (const name of tool.body) if (arg(name) !== undefined) body[name] = arg(name);
  const headers: Record<string, string> = {};
  const key = arg("idempotencyKey");
  if (key !== undefined) {
    if (typeof key !== "string") throw invalid(`idempotencyKey must be a string (got ${shown(key)})`);
    validateKey(key, "idempotencyKey");
    headers["idempotency-key"] = key;
  }
  const query = search.toString();
  return { method: tool.method, path: query ? `${path}?${query}` : path, ...(tool.body.length > 0 ? { body } : {}), headers };
}
