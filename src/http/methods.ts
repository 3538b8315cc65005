// 405 Method Not Allowed, with Allow, when a path exists under other methods: an agent that sent GET
// to a POST route learns which method to use, instead of a 404 or (GET /payments/send matching
// GET /payments/:id) a complaint about the id.
import { ApiError } from "../errors";

type Route = { method: string; path: string };

const exact = new Map<string, Set<string>>();
const patterns: { pattern: RegExp; method: string }[] = [];

/** Called once with the app's routes. */
export function learnRoutes(routes: Route[]): void {
  for (const { method, path } of routes) {
    if (method === "ALL") continue;
    if (path.includes(":") || path.includes("*")) {
      const source = path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*");
      patterns.push({ pattern: new RegExp(`^${source}/?$`), method });
    } else {
      const methods = exact.get(path) ?? new Set<string>();
      methods.add(method);
      exact.set(path, methods);
    }
  }
}

const notAllowed = (methods: Set<string>) =>
  new ApiError("METHOD_NOT_ALLOWED", `this path takes ${[...methods].sort().join(", ")}`, { allow: [...methods].sort().join(", ") });

/** Before routing: a path that exists as it is, but not with this method, is 405 (a parameterised route must not claim it). */
export function assertMethodOfExactPath(method: string, path: string): void {
  const methods = exact.get(path);
  if (methods && !methods.has(method) && !(method === "HEAD" && methods.has("GET"))) throw notAllowed(methods);
}

/** For a request no route took: 405 when the path matches a route of another method, else null (404). */
export function methodNotAllowed(path: string): ApiError | null {
  const methods = new Set([...(exact.get(path) ?? []), ...patterns.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method)]);
  return methods.size > 0 ? notAllowed(methods) : null;
}
