// Binds each MCP tool to its route: the tool's input schema is the route's own params, query and body
// schemas merged into one object (plus idempotencyKey where the route honours Idempotency-Key), its
// output schema the route's success response. Nothing is declared twice: a route's schema change is
// the tool's.
import { plainSchema, type JsonSchema } from "../http/openapi";
import { dictionary, ownProperty } from "../json";
import type { ToolSpec } from "./tools";

/** The part of an Elysia route the catalogue reads. */
export type RouteInfo = {
  method: string;
  path: string;
  hooks: { params?: unknown; query?: unknown; body?: unknown; response?: unknown; detail?: { responses?: Record<string, { description?: string }> } };
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
  description: "Any unique string (a UUID is fine). Retrying with the same key applies the call once and replays its first answer.",
};

const objectParts = (schema: unknown) => {
  const plain = schema ? plainSchema(schema) : null;
  return { properties: plain?.properties ?? {}, required: plain?.required ?? [] };
};

/** The route's success answer; a route with two (201, or 202 when the owner must approve) answers either. */
function successSchema(route: RouteInfo): (JsonSchema & { type: "object" }) | null {
  const responses = route.hooks.response as Record<string, unknown> | undefined;
  if (!responses || typeof responses !== "object") return null;
  const schemas = Object.keys(responses)
    .filter((code) => code.startsWith("2"))
    .map((code) => plainSchema(responses[code]))
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
    const idempotent = Object.values(route.hooks.detail?.responses ?? {}).some((response) => response.description?.includes("IDEMPOTENCY_KEY_REUSED"));
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

/** The HTTP request a tool call makes: path parameters substituted, the rest as query string or JSON body. */
export function requestFor(tool: Tool, args: Record<string, unknown>): ApiRequest {
  // Argument names are the caller's: read as own properties, copied into a body without a prototype
  // (an argument "__proto__" stays an argument, which the route then refuses).
  const arg = (name: string) => ownProperty(args, name);
  let path = tool.path;
  for (const name of tool.params) path = path.replace(`:${name}`, encodeURIComponent(String(arg(name) ?? "")));
  const search = new URLSearchParams();
  for (const name of tool.query) if (arg(name) !== undefined) search.set(name, String(arg(name)));
  const body = dictionary<unknown>();
  for (const name of tool.body) if (arg(name) !== undefined) body[name] = arg(name);
  // Anything else (a misspelt argument) goes into the body, where the route names it in a 400.
  for (const [name, value] of Object.entries(args)) {
    if (name !== "idempotencyKey" && !tool.params.includes(name) && !tool.query.includes(name) && !tool.body.includes(name)) body[name] = value;
  }
  const headers: Record<string, string> = {};
  const idempotencyKey = arg("idempotencyKey");
  if (tool.idempotent && typeof idempotencyKey === "string") headers["idempotency-key"] = idempotencyKey;
  const query = search.toString();
  const hasBody = tool.body.length > 0 || Object.keys(body).length > 0;
  return { method: tool.method, path: query ? `${path}?${query}` : path, ...(hasBody ? { body } : {}), headers };
}
