import { t } from "elysia";
import { Uuid } from "../http/models";
import { Enum, JsonObject, MaybeTimestamp, Model, Nullable, Page, Timestamp } from "../http/responses";
import { AUDIT_ACTIONS } from "./audit";

const OPERATOR_ID = "0198f3d0-4a5b-7c6d-8e9f-0a1b2c3d4e5f";

const operatorFields = {
  id: Uuid,
  name: t.String({ description: "who holds the key, as the audit log names them" }),
  createdAt: Timestamp(),
  lastUsedAt: MaybeTimestamp("when a request last came with the key (to the minute); null: never"),
  revokedAt: MaybeTimestamp("when it was revoked; null: in force"),
};
const EXAMPLE = { id: OPERATOR_ID, name: "ada", createdAt: "2025-06-01T09:00:00.000Z", lastUsedAt: "2025-06-02T14:31:00.000Z", revokedAt: null };

export const OperatorKey = Model(operatorFields, { description: "A named operator's key (never the key itself)", examples: [EXAMPLE] });

export const OperatorKeyPage = Page(OperatorKey, "A page of operator keys, newest first");

export const NewOperatorKey = Model(
  { ...operatorFields, apiKey: t.String({ description: "the operator key (pa_…): shown this once, stored only as its hash. `Authorization: Bearer pa_…` on /admin routes" }) },
  {
    description: "An operator key just made or rotated, with the key itself",
    examples: [{ ...EXAMPLE, lastUsedAt: null, apiKey: "pa_q3ZJm0V9c8yTn2Xw4bKf7HsLrA1uPeD6gYhQi5oNtMk" }],
  },
);

export const AuditEntry = Model(
  {
    id: Uuid,
    operator: t.String({ description: "who acted: a named operator key's holder, `admin` (ADMIN_API_KEY) or `system` (the service itself)" }),
    action: Enum(AUDIT_ACTIONS, { description: "what was done" }),
    at: Timestamp(),
    requestId: Nullable(t.String(), { description: "the request's Request-Id, as its log line has it; null for what the service recorded by itself" }),
    target: Nullable(t.String(), { description: "what it acted on: an agent's id, an operator key's, a bet's…; null when nothing in particular" }),
    details: Nullable(JsonObject("what it was asked with (the request's body), or the configuration seen at start")),
  },
  {
    description: "One operator action, as the audit log keeps it (append-only)",
    examples: [
      {
        id: "0198f3d1-5b6c-7d8e-9f0a-1b2c3d4e5f60",
        operator: "ada",
        action: "deposit.credit",
        at: "2025-06-02T14:31:07.000Z",
        requestId: "0198f3d1-5b6c-7d8e-9f0a-1b2c3d4e5f61",
        target: "0198f3a1-0b2c-7d3e-8f4a-5b6c7d8e9f01",
        details: { agentId: "0198f3a1-0b2c-7d3e-8f4a-5b6c7d8e9f01", amount: 100, currency: "USDC", reference: "wire 2025-06-02" },
      },
    ],
  },
);

export const AuditPage = Page(AuditEntry, "A page of the audit log, newest first");
