// Owner console sessions: an HttpOnly, SameSite=Strict cookie (Secure over HTTPS) naming a random
// token stored hashed; every form post carries the session's CSRF token (before sign-in, a
// double-submit cookie does the same job).
import { timingSafeEqual } from "node:crypto";
import { clock } from "../clock";
import { sqlite } from "../db";
import { secret, sha256Hex } from "../ids";

export const SESSION_COOKIE = "agentbank_session";
export const LOGIN_CSRF_COOKIE = "agentbank_login_csrf";
const SESSION_TTL_MS = 12 * 3_600_000;

export type Session = { agentId: string; csrfToken: string };

export function cookie(name: string, value: string, request: Request, maxAgeSeconds: number): string {
  const https = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${https ? "; Secure" : ""}`;
}

export function readCookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return null;
}

export const sameToken = (a: string | undefined | null, b: string | undefined | null) =>
  !!a && !!b && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** Inside write(): a new session for the owner of `agentId`; returns the cookie token. */
export function openSession(agentId: string): { token: string; maxAgeSeconds: number } {
  const token = secret("cs_");
  const now = clock.nowMs();
  sqlite
    .query("INSERT INTO console_sessions (token_hash, agent_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .run(sha256Hex(token), agentId, secret(""), now, now + SESSION_TTL_MS);
  return { token, maxAgeSeconds: SESSION_TTL_MS / 1000 };
}

export function sessionOf(request: Request): Session | null {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return null;
  const row = sqlite
    .query("SELECT agent_id AS agentId, csrf_token AS csrfToken, expires_at AS expiresAt FROM console_sessions WHERE token_hash = ?")
    .get(sha256Hex(token)) as { agentId: string; csrfToken: string; expiresAt: bigint } | null;
  if (!row || Number(row.expiresAt) <= clock.nowMs()) return null;
  return { agentId: row.agentId, csrfToken: row.csrfToken };
}

/** Inside write(). */
export function closeSession(request: Request): void {
  const token = readCookie(request, SESSION_COOKIE);
  if (token) sqlite.query("DELETE FROM console_sessions WHERE token_hash = ?").run(sha256Hex(token));
}
