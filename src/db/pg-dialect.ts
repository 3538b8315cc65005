// The portable SQL that features write (query.ts), as PostgreSQL runs it.
import { FOR_UPDATE, SKIP_LOCKED } from "./query";

/** What the code between them is never rewritten in: '…' literals, "…" identifiers, comments. */
const QUOTED_OR_COMMENT = /'[^']*'|"[^"]*"|\/\*[\s\S]*?\*\/|--[^\n]*/g;

/** An alias with a capital letter, which PostgreSQL would fold to lower case unless quoted. */
const CAMEL_CASE_ALIAS = /\bAS(\s+)([a-z][a-z0-9_]*[A-Z][A-Za-z0-9_]*)\b/g;

/**
 * The lock markers are comments to SQLite. NO KEY: no op changes a key, and a plain FOR UPDATE would
 * also wait for every transaction that merely inserted a row referring to the locked one (the KEY SHARE
 * lock of a foreign key) — a payment to an agent would then block, and deadlock with, that agent's own
 * payment locking its row to add to its score.
 */
const LOCK_CLAUSES = new Map([
  [FOR_UPDATE, "FOR NO KEY UPDATE"],
  [SKIP_LOCKED, "FOR NO KEY UPDATE SKIP LOCKED"],
]);

/**
 * `?` → `$n`, `AS camelCase` → `AS "camelCase"`, the FOR_UPDATE and SKIP_LOCKED markers → their
 * clauses; quoted text and other comments are copied as they are (a doubled '' inside a literal reads
 * as two literals side by side, which leaves it whole).
 */
export function toPostgres(sql: string): string {
  let index = 0;
  const code = (text: string) => text.replaceAll("?", () => `$${++index}`).replace(CAMEL_CASE_ALIAS, 'AS$1"$2"');
  let out = "";
  let end = 0;
  for (const match of sql.matchAll(QUOTED_OR_COMMENT)) {
    out += code(sql.slice(end, match.index)) + (LOCK_CLAUSES.get(match[0]) ?? match[0]);
    end = match.index + match[0].length;
  }
  return out + code(sql.slice(end));
}
