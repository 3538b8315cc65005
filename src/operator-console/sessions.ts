// Operator console sessions: an HttpOnly, SameSite=Strict cookie (Secure over HTTPS) under /operator,
// naming a random token stored hashed, bound to the operator key it was opened with. Every request reads
// that key again (ADMIN_API_KEY, or the named key's row by its hash: operatorByKeyHash), so a revoked or
// rotated key — or a changed ADMIN_API_KEY — ends its sessions at the next request. Eight hours at most.
import { isBootstrapKeyHash, operatorFromHeader } from "../auth/keys";
import { clock } from "../clock";
import { config } from "../config";
import { insert, read, run, select, write, type Op } from "../db";
import { secret, sha256Hex } from "../ids";
import { BOOTSTRAP_OPERATOR, type Operator } from "../operators/audit";
import { operatorByKeyHash } from "../operators/keys";
import { operatorSessions } from "../operators/schema";
import { readCookie } from "../owners/sessions";
import { HOUR_MS } from "../time";

export const OPERATOR_PATH = "/operator";
export const OPERATOR_SESSION_COOKIE = "agentbank_operator_session";
export const OPERATOR_LOGIN_CSRF_COOKIE = "agentbank_operator_login_csrf";
const SESSION_TTL_MS = 8 * HOUR_MS;

export type OperatorSession = { operator: Operator; csrfToken: string };

/** Whether the operator console exists: as /admin, not without ADMIN_API_KEY (named keys are off then too). */
export const consoleOpen = () => !!config.adminApiKey;

/**
 * Signs in with an operator key, checked as the operator API checks it (auth/keys.ts): a new session
 * and its cookie's token; an ApiError (401) for a key that is none.
 */
export async function openOperatorSession(key: string): Promise<{ operator: Operator; token: string; maxAgeSeconds: number }> {
  const operator = await operatorFromHeader(`Bearer ${key}`);
  const token = secret("os_");
  const now = clock.nowMs();
  await write(function* () {
    // Expired sessions go as new ones come: the table holds hours of sign-ins, not years.
    yield* run("DELETE FROM operator_sessions WHERE expires_at <= ?", now);
    yield* insert(operatorSessions, { tokenHash: sha256Hex(token), keyHash: sha256Hex(key), csrfToken: secret(""), createdAt: now, expiresAt: now + SESSION_TTL_MS });
  });
  return { operator, token, maxAgeSeconds: SESSION_TTL_MS / 1000 };
}

/** The session this request's cookie names, while unexpired and its key is still in force; null otherwise. */
export function* operatorSessionOf(request: Request): Op<OperatorSession | null> {
  const token = readCookie(request, OPERATOR_SESSION_COOKIE);
  if (!token || !consoleOpen()) return null;
  const [row] = yield* select(operatorSessions, "token_hash = ?", sha256Hex(token));
  if (!row || row.expiresAt <= clock.nowMs()) return null;
  if (isBootstrapKeyHash(row.keyHash)) return { operator: BOOTSTRAP_OPERATOR, csrfToken: row.csrfToken };
  const named = yield* operatorByKeyHash(row.keyHash);
  return named ? { operator: { id: named.id, name: named.name }, csrfToken: row.csrfToken } : null;
}

export const currentOperatorSession = (request: Request) => read(operatorSessionOf(request));

/** Signs out: the session's row goes. */
export async function closeOperatorSession(request: Request): Promise<void> {
  const token = readCookie(request, OPERATOR_SESSION_COOKIE);
  if (token) await write(() => run("DELETE FROM operator_sessions WHERE token_hash = ?", sha256Hex(token)));
}
