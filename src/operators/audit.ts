// The audit log: who did what, when, in answer to which request. An entry is written by the operator's
// door (door/operator.ts) in the same transaction as the action it records, so an action and its entry
// commit together or not at all; the service records its start (admin/start.ts). Nothing updates or
// deletes an entry (test/operators.test.ts reads src/ for a statement that would).
import { clock, iso } from "../clock";
import { insertOnly, narrowing, newestFirst, type Op, type PageWindow, type Row } from "../db";
import { uuid } from "../ids";
import { jsonText, readJson } from "../json";
import { auditLog } from "./schema";

/** Who acts: a named operator's key (its row's id), the bootstrap key, or the service itself (id null). */
export type Operator = { id: string | null; name: string };
/** ADMIN_API_KEY's holder. */
export const BOOTSTRAP_OPERATOR: Operator = { id: null, name: "admin" };
/** The service, recording what it saw at start. */
export const SYSTEM_OPERATOR: Operator = { id: null, name: "system" };

/** Every action the audit log records: each operator route that changes something declares one. */
export const AUDIT_ACTIONS = [
  "deposit.credit",
  "agent.correct",
  "agent.rate-limit",
  "agent.freeze",
  "agent.unfreeze",
  "bet.resolve",
  "chain.acknowledge",
  "clock.advance",
  "mail.test",
  "backup.take",
  "operator.create",
  "operator.rotate",
  "operator.revoke",
  "service.start",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = { operator: Operator; action: AuditAction; target: string | null; details: Record<string, unknown> | null; requestId: string | null };

/** A write op: one entry, in the transaction of the action it records. */
export function* recordAudit(entry: AuditEntry): Op<void> {
  yield* insertOnly(auditLog, {
    id: uuid(),
    operatorId: entry.operator.id,
    operator: entry.operator.name,
    action: entry.action,
    target: entry.target,
    details: entry.details === null ? null : jsonText(entry.details),
    requestId: entry.requestId,
    createdAt: clock.nowMs(),
  });
}

function auditView(row: Row<typeof auditLog>) {
  return {
    id: row.id,
    operator: row.operator,
    action: row.action,
    at: iso(row.createdAt),
    requestId: row.requestId,
    target: row.target,
    details: row.details === null ? null : readJson(row.details),
  };
}

/** The log, newest first; narrowed to one operator's name or one action. */
export function auditList(filter: { operator?: string; action?: string }, window: PageWindow) {
  const narrow = narrowing({ "operator = ?": filter.operator, "action = ?": filter.action });
  return newestFirst({ table: auditLog, scope: { where: "1 = 1", params: [] }, narrow }, window, auditView);
}
