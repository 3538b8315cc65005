// The one place errors become HTTP answers: { error, message } with the contract's status codes.
import { Elysia } from "elysia";
import { ApiError } from "../errors";

type ValidationIssue = { path?: string; message?: string; summary?: string; schema?: { error?: unknown } };

function validationMessage(error: unknown): { message: string; details: unknown } {
  const issues = ((error as { all?: ValidationIssue[] }).all ?? []).slice(0, 10);
  // Elysia validates query parameters one by one and reports them as type "property", without a name.
  const type = (error as { type?: string }).type;
  const where = type === "property" ? `query parameter (got ${JSON.stringify((error as { value?: unknown }).value)})` : (type ?? "request");
  // A schema's own `error` (e.g. FreeForm's limits) says more than TypeBox's summary.
  const details = issues.map((issue) => ({
    path: issue.path || "/",
    message: typeof issue.schema?.error === "string" ? issue.schema.error : (issue.summary ?? issue.message ?? "invalid"),
  }));
  const first = details[0];
  return {
    message: first ? `invalid ${where}: ${first.path === "/" ? "" : `${first.path.slice(1)}: `}${first.message}` : `invalid ${where}`,
    details,
  };
}

export const errorHandler = new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error: thrown, set }) => {
  // Elysia wraps whatever a parse hook throws in a ParseError; parseBody throws ApiErrors.
  const error = code === "PARSE" && (thrown as Error).cause instanceof ApiError ? ((thrown as Error).cause as ApiError) : thrown;
  if (error instanceof ApiError) {
    set.status = error.status;
    if (error.extra.retryAfterSeconds !== undefined) set.headers["retry-after"] = String(error.extra.retryAfterSeconds);
    return { error: error.code, message: error.message, ...(error.extra.details ? { details: error.extra.details } : {}) };
  }
  switch (code) {
    case "VALIDATION": {
      // An answer that does not match its declared response schema is the service's bug, not the caller's.
      if ((error as { type?: string }).type === "response") return internalError(set, code, error);
      set.status = 400;
      return { error: "VALIDATION_ERROR", ...validationMessage(error) };
    }
    case "PARSE":
      set.status = 400;
      return { error: "VALIDATION_ERROR", message: "the body is not valid JSON (send Content-Type: application/json)" };
    case "NOT_FOUND":
      set.status = 404;
      return { error: "NOT_FOUND", message: "no such route" };
    default:
      return internalError(set, code, error);
  }
});

function internalError(set: { status?: number | string }, code: unknown, error: unknown) {
  set.status = 500;
  console.error(JSON.stringify({ level: "error", msg: "unexpected error", code, error: String((error as Error)?.stack ?? error).slice(0, 4000) }));
  return { error: "INTERNAL_ERROR", message: "unexpected error" };
}
