// Request bodies are read and parsed here, for every route: at most MAX_BODY_BYTES whether or not the
// client sent Content-Length (a chunked body is cut off at the limit, not buffered), nested at most
// MAX_JSON_DEPTH levels (checked on the text, before JSON.parse), and JSON only — HTML forms are
// accepted on the owner console's own routes and on OAuth's token endpoint (RFC 6749 §3.2) alone. A JSON body that uses `__proto__`, `constructor`
// or `prototype` as a key or a dotted part of one ("__proto__.x"), at any depth (metadata and offers
// too), is refused: no feature needs such a key, and refusing it here means no code behind can ever
// copy it onto a prototype. A form's fields arrive as an object without a prototype; the console
// refuses those names with its own error page.
import { ApiError, invalid } from "../errors";
import { dictionary, JsonTooDeep, MAX_JSON_DEPTH, parseJson, RESERVED_KEYS, reservedKeyPath } from "../json";
import { readCapped, TooLarge } from "../net/outbound";

export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new ApiError("PAYLOAD_TOO_LARGE", `the body is larger than ${MAX_BODY_BYTES} bytes`);

const isJson = (contentType: string) => contentType === "application/json" || contentType.endsWith("+json");

/** The parsed body, or null when the request has none. Throws 400 / 413 as ApiError. */
export async function parseBody(request: Request, contentType: string, path: string): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (Number(declared ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  let bytes: Uint8Array;
  try {
    // With Content-Length the server reads exactly that many bytes: taken whole (no stream machinery for
    // a small body). Without it (chunked), read piece by piece and cut off at the limit.
    bytes = declared !== null ? new Uint8Array(await request.arrayBuffer()) : await readCapped(request, MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof TooLarge) throw tooLarge();
    throw invalid("the body could not be read");
  }
  if (bytes.byteLength === 0) return null;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalid("the body is not valid UTF-8");
  }
  if (contentType === "application/x-www-form-urlencoded" && (path.startsWith("/console") || path.startsWith("/operator/") || path === "/oauth/token")) {
    const fields = dictionary<string>();
    for (const [name, value] of new URLSearchParams(text)) fields[name] = value;
    return fields;
  }
  if (!isJson(contentType)) throw invalid("send the body as JSON with Content-Type: application/json");
  let body: unknown;
  try {
    body = parseJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeep) throw invalid(`the body nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels`);
    throw invalid("the body is not valid JSON");
  }
  const reserved = reservedKeyPath(body);
  if (reserved !== null) {
    const message = `${reserved}: ${[...RESERVED_KEYS].join(", ")} are not accepted as a key, or as a part of one, anywhere in a body`;
    throw new ApiError("VALIDATION_ERROR", message, { details: [{ field: reserved, message }] });
  }
  return body;
}
