// One JSON line per request (through src/log.ts), `msg` "request". The line is written as text, not
// built as an object for JSON.stringify: it is made for every answer, and its fields are known (only
// the client-given ones — the path, the request id, an error's message — need JSON's escaping). Every
// answer carries a Request-Id (the client's own, if it sent a sane one), which is also in the log line
// and in error bodies, so one failed call can be found in the log. Level: error for a 5xx (the service
// failed), warn for a 4xx (refused: a caller's mistake, an attack, a limit reached — what an operator
// running at LOG_LEVEL=warn still wants to see), info otherwise. A 4xx or 5xx line carries the answer's
// `code` and `message`; an operator's request, `credential: "operator"` and the operator's name.
import { Elysia } from "elysia";
import { uuid } from "../ids";
import { logs, logStamp, pushLine, type LogLevel } from "../log";

/** The path of a request URL without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const started = new WeakMap<Request, number>();
/** What credential the request came with (src/auth), for its log line: the kind, a restricted key's id, an operator's name. */
const credentials = new WeakMap<Request, { kind: string; keyId: string | null; operator?: string }>();
export const noteCredential = (request: Request, kind: string, keyId: string | null) => credentials.set(request, { kind, keyId });
/** The operator whose key the request came with (src/auth/keys.ts): "admin" for ADMIN_API_KEY. */
export const noteOperator = (request: Request, name: string) => credentials.set(request, { kind: "operator", keyId: null, operator: name });
/** The error a request was answered with (src/http/errors.ts, and routes that answer refusals themselves), for its line. */
const refusals = new WeakMap<Request, { code: string; message: string }>();
export const noteError = (request: Request, code: string, message: string) => refusals.set(request, { code, message });

const levelOf = (status: number): LogLevel => (status >= 500 ? "error" : status >= 400 ? "warn" : "info");

export const requestLog = new Elysia({ name: "request-log" })
  .onRequest(({ request, set }) => {
    started.set(request, performance.now());
    const given = request.headers.get("request-id") ?? request.headers.get("x-request-id");
    set.headers["request-id"] = given && REQUEST_ID.test(given) ? given : uuid();
  })
  .onAfterResponse({ as: "global" }, (context) => {
    const { request, set, path } = context;
    const start = started.get(request);
    const status = typeof set.status === "number" ? set.status : 200;
    const level = levelOf(status);
    if (!logs(level)) return;
    const ms = start === undefined ? "null" : String(Math.round((performance.now() - start) * 100) / 100);
    const agentId = (context as { agent?: { id: string } }).agent?.id;
    const credential = credentials.get(request);
    const refusal = status >= 400 ? refusals.get(request) : undefined;
    pushLine(
      `{"level":"${level}","t":"${logStamp()}","msg":"request","requestId":${JSON.stringify(set.headers["request-id"] ?? null)},"method":${JSON.stringify(request.method)},` +
        `"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"agentId":${agentId === undefined ? "null" : JSON.stringify(agentId)}` +
        `,"credential":${credential ? `"${credential.kind}"` : "null"},"keyId":${credential?.keyId ? `"${credential.keyId}"` : "null"}` +
        (credential?.operator === undefined ? "" : `,"operator":${JSON.stringify(credential.operator)}`) +
        (refusal ? `,"code":${JSON.stringify(refusal.code)},"message":${JSON.stringify(refusal.message)}` : "") +
        "}",
    );
  });
