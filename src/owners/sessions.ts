// Owner console sessions: an HttpOnly, SameSite=Strict cookie (Secure over HTTPS) naming a random
// token stored hashed; every form post carries the session's CSRF token (before sign-in, a
// double-submit cookie does the same job).
import { timingSafeEqual } from "node:crypto";
import { clock } from "../clock";
import { insert, run, select, type Op } from "../db";
import { type AgentId, secret, sha256Hex } from "../ids";
import { HOUR_MS } from "../time";
import { consoleSessions } from "./schema";

export const SESSION_COOKIE = "agentbank_session";
export const LOGIN_CSRF_COOKIE = "agentbank_login_csrf";
const SESSION_TTL_MS = 12 * HOUR_MS;

/** `ownerId`: signed in by e-mail, an owner account (every agent it claimed); null: with one agent's owner key. */
export type Session = { agentId: AgentId; ownerId: string | null; csrfToken: string };

/** A console's cookie: HttpOnly, SameSite=Strict, Secure over HTTPS, sent only under `path` (the operator console's is /operator). */
export function cookie(name: string, value: string, request: Request, maxAgeSeconds: number, path = "/console"): string {
  const https = new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  return `${name}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${https ? "; Secure" : ""}`;
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

/** A write op: a new session showing `agentId`, of the owner account `ownerId` (null: signed in with the agent's owner key); returns the cookie token. */
export function* openSession(agentId: AgentId, ownerId: string | null = null): Op<{ token: string; maxAgeSeconds: number }> {
  const token = secret("cs_");
  const now = clock.nowMs();
  yield* insert(consoleSessions, { tokenHash: sha256Hex(token), agentId, ownerId, csrfToken: secret(""), createdAt: now, expiresAt: now + SESSION_TTL_MS });
  return { token, maxAgeSeconds: SESSION_TTL_MS / 1000 };
}

export function* sessionOf(request: Request): Op<Session | null> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return null;
  const [row] = yield* select(consoleSessions, "token_hash = ?", sha256Hex(token));
  if (!row || row.expiresAt <= clock.nowMs()) return null;
  return { agentId: row.agentId, ownerId: row.ownerId, csrfToken: row.csrfToken };
}

/** A write op: every session signed in with the agent's owner key ends (it was replaced); sessions by e-mail stay. */
export function* closeSessionsOf(agentId: AgentId): Op<void> {
  yield* run("DELETE FROM console_sessions WHERE agent_id = ? AND owner_id IS NULL", agentId);
}

/** A write op: an owner's session shows another of its agents (the caller checked the owner claimed it). */
export function* showAgent(request: Request, agentId: AgentId): Op<void> {
  const token = readCookie(request, SESSION_COOKIE);
  if (token) yield* run("UPDATE console_sessions SET agent_id = ? WHERE token_hash = ? AND owner_id IS NOT NULL", agentId, sha256Hex(token));
}

/** A write op. */
export function* closeSession(request: Request): Op<void> {
  const token = readCookie(request, SESSION_COOKIE);
  if (token) yield* run("DELETE FROM console_sessions WHERE token_hash = ?", sha256Hex(token));
}
