// One JSON line per request (through src/log.ts). The request's line is written as text, not built as
// an object for JSON.stringify: it is made for every answer, and its fields are known (only the
// client-given ones — the path, the request id — need JSON's escaping). Every answer carries a
// Request-Id (the client's own, if it sent a sane one), which is also in the log line and in error
// bodies, so one failed call can be found in the log.
import { Elysia } from "elysia";
import { uuid } from "../ids";
import { logStamp, pushLine } from "../log";

/** The path of a request URL without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const started = new WeakMap<Request, number>();
/** What credential the request came with (src/auth), for its log line: the kind, and a restricted key's id. */
const credentials = new WeakMap<Request, { kind: string; keyId: string | null }>();
export const noteCredential = (request: Request, kind: string, keyId: string | null) => credentials.set(request, { kind, keyId });

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
    const ms = start === undefined ? "null" : String(Math.round((performance.now() - start) * 100) / 100);
    const agentId = (context as { agent?: { id: string } }).agent?.id;
    const credential = credentials.get(request);
    pushLine(
      `{"level":"${status >= 500 ? "error" : "info"}","t":"${logStamp()}","requestId":${JSON.stringify(set.headers["request-id"] ?? null)},"method":${JSON.stringify(request.method)},` +
        `"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"agentId":${agentId === undefined ? "null" : JSON.stringify(agentId)}` +
        `,"credential":${credential ? `"${credential.kind}"` : "null"},"keyId":${credential?.keyId ? `"${credential.keyId}"` : "null"}}`,
    );
  });
