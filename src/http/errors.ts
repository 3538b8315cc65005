// The one place errors become HTTP answers: { error, message } with the contract's status codes.
import { Elysia } from "elysia";
import { ApiError } from "../errors";
import { logLine } from "../log";
import { noteError, pathOf } from "./log";
import { methodNotAllowed } from "./methods";
import { fieldProblems, type FieldProblem } from "./validation";

/** The query parameter Elysia validated alone (it reports it without a name), found by its value. */
function queryParameterNamed(request: Request, value: unknown): string | null {
  const names = [...new URL(request.url).searchParams].filter(([, text]) => text === String(value)).map(([name]) => name);
  return names.length === 1 ? names[0]! : null;
}

function validationAnswer(error: unknown, request: Request): { message: string; details: FieldProblem[] } {
  const { all, type, value } = error as { all?: Parameters<typeof fieldProblems>[0]; type?: string; value?: unknown };
  const where = type === "property" ? (queryParameterNamed(request, value) ?? "query parameter") : null;
  const details = fieldProblems((all ?? []).slice(0, 20), where);
  const first = details[0];
  const more = details.length > 1 ? ` (and ${details.length - 1} more in details)` : "";
  return { message: first ? `${first.message}${more}` : `invalid ${type ?? "request"}`, details };
}

/** Faces for people (the owner console), by path prefix: the page they answer for an address of theirs that is none of their pages. */
const pageFaces = new Map<string, (request: Request) => Promise<Response>>();

/**
 * Under `prefix`, an address no route takes, or whose path parameters or query do not validate (a
 * mistyped link, an id cut short), answers `page` instead of the API's JSON. A wrong method on a path
 * that exists stays a 405.
 */
export function answerUnknownAddressesWith(prefix: string, page: (request: Request) => Promise<Response>): void {
  pageFaces.set(prefix, page);
}

const ADDRESS_PARTS = new Set(["params", "query", "property"]);

function facePage({ code, error, request }: { code: unknown; error: unknown; request: Request }): Promise<Response> | null {
  if (pageFaces.size === 0) return null;
  const path = pathOf(request.url);
  const unknown = (code === "NOT_FOUND" && methodNotAllowed(path) === null) || (code === "VALIDATION" && ADDRESS_PARTS.has(String((error as { type?: string }).type)));
  if (!unknown) return null;
  for (const [prefix, page] of pageFaces) if (path === prefix || path.startsWith(`${prefix}/`)) return page(request);
  return null;
}

/**
 * A route that shows a service's refusal on its own page (the console's `section`, src/console/door.ts)
 * resolves `showRefusal`: given the ApiError and the request's context, that page, or null (not shown).
 * It answers here, not in a route's own error hook: this handler, global, would answer first.
 */
type ShowsRefusals = { showRefusal?: (error: ApiError, context: object) => Promise<Response> | null };

// Every error answer, whatever its face, is noted for the request's log line (its code and message).
export const errorHandler = new Elysia({ name: "errors" }).onError({ as: "global" }, (context) => {
  const { request } = context;
  const page = facePage(context);
  if (page) {
    noteError(request, "NOT_FOUND", "no such page");
    return page;
  }
  const shown = context.error instanceof ApiError ? (context as unknown as ShowsRefusals).showRefusal?.(context.error, context) : null;
  if (shown) {
    noteError(request, (context.error as ApiError).code, (context.error as ApiError).message);
    return shown;
  }
  const body = errorBody(context);
  noteError(request, body.error, body.message);
  return { ...body, requestId: context.set.headers["request-id"] };
});

function errorBody({ code, error: thrown, set, request }: { code: unknown; error: unknown; set: { status?: number | string; headers: Record<string, unknown> }; request: Request }) {
  // Elysia wraps whatever a parse hook throws in a ParseError; parseBody throws ApiErrors.
  const error = code === "PARSE" && (thrown as Error).cause instanceof ApiError ? ((thrown as Error).cause as ApiError) : thrown;
  if (error instanceof ApiError) {
    set.status = error.status;
    if (error.extra.retryAfterSeconds !== undefined) set.headers["retry-after"] = String(error.extra.retryAfterSeconds);
    if (error.extra.allow !== undefined) set.headers.allow = error.extra.allow;
    return { error: error.code, message: error.message, ...(error.extra.details ? { details: error.extra.details } : {}) };
  }
  switch (code) {
    case "VALIDATION": {
      // An answer that does not match its declared response schema is the service's bug, not the caller's.
      if ((error as { type?: string }).type === "response") return internalError(set, code, error);
      set.status = 400;
      return { error: "VALIDATION_ERROR", ...validationAnswer(error, request) };
    }
    case "PARSE":
      set.status = 400;
      return { error: "VALIDATION_ERROR", message: "the body is not valid JSON (send Content-Type: application/json)" };
    case "NOT_FOUND": {
      const wrongMethod = methodNotAllowed(pathOf(request.url));
      if (wrongMethod) return errorBody({ code, error: wrongMethod, set, request });
      set.status = 404;
      return { error: "NOT_FOUND", message: "no such route" };
    }
    default:
      return internalError(set, code, error);
  }
}

function internalError(set: { status?: number | string; headers: Record<string, unknown> }, code: unknown, error: unknown) {
  set.status = 500;
  logLine({ level: "error", msg: "unexpected error", requestId: set.headers["request-id"], code, error: String((error as Error)?.stack ?? error).slice(0, 4000) });
  return { error: "INTERNAL_ERROR", message: "unexpected error" };
}
