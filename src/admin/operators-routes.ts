// The operators themselves: named operator keys (pa_…) made, listed, rotated and revoked by operators,
// and the audit log of everything operators did (operators/). ADMIN_API_KEY stays the bootstrap key.
import { t } from "elysia";
import { operatorRoutes } from "../door/operator";
import { docs, IdParam, paged, PageQuery } from "../http/models";
import { answers, Enum } from "../http/responses";
import { AUDIT_ACTIONS, auditList } from "../operators/audit";
import { createOperatorKey, listOperatorKeys, revokeOperatorKey, rotateOperatorKey } from "../operators/keys";
import { AuditPage, NewOperatorKey, OperatorKey, OperatorKeyPage } from "../operators/model";

const Name = t.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9](?:[A-Za-z0-9._@ -]*[A-Za-z0-9])?$",
  description: "who will hold the key (a person's name or address): letters, digits, spaces and . _ @ -, at most 64 characters",
  "x-rule": "must be 1 to 64 letters, digits, spaces or . _ @ -, beginning and ending with a letter or digit",
});

export const operatorAdminRoutes = operatorRoutes("operators-admin")
  .post("/operators", async ({ body, write, status }) => status(201, await write(() => createOperatorKey(body.name), (made) => made.id)), {
    action: "operator.create",
    body: t.Object({ name: Name }),
    ...answers(
      docs("Operator", "Make a named operator key (pa_…): its holder's actions are recorded under that name. The key is in the answer only; `admin` and `system` are taken", "admin", ["INVALID_STATE"]),
      { 201: NewOperatorKey },
    ),
  })
  .get("/operators", ({ query, read }) => paged(query, (window) => read(listOperatorKeys(query.q, window))), {
    query: t.Object({ ...PageQuery.properties, q: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "only keys whose holder's name contains this (any case)" })) }),
    ...answers(docs("Operator", "Every named operator key, revoked ones too, newest first (never the keys themselves)", "admin"), { 200: OperatorKeyPage }),
  })
  .post("/operators/:id/rotate", ({ params, write }) => write(() => rotateOperatorKey(params.id), params.id), {
    action: "operator.rotate",
    params: IdParam,
    ...answers(docs("Operator", "A new key for the same operator (same id and name); the old key is refused (401) from the next request on, on every instance", "admin", ["NOT_FOUND", "INVALID_STATE"]), {
      200: NewOperatorKey,
    }),
  })
  .delete("/operators/:id", ({ params, write }) => write(() => revokeOperatorKey(params.id), params.id), {
    action: "operator.revoke",
    params: IdParam,
    ...answers(docs("Operator", "Revoke an operator key: refused (401) from the next request on, on every instance; its name may be given to a new key", "admin", ["NOT_FOUND", "INVALID_STATE"]), {
      200: OperatorKey,
    }),
  })
  .get("/audit", ({ query, read }) => paged(query, (window) => read(auditList({ operator: query.operator, action: query.action }, window))), {
    query: t.Object({
      ...PageQuery.properties,
      operator: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "only this operator's actions (a name, `admin` or `system`)" })),
      action: t.Optional(Enum(AUDIT_ACTIONS, { description: "only this action" })),
    }),
    ...answers(docs("Operator", "What operators did, newest first: who, what, on what, when and in answer to which request. Append-only: no route changes or removes an entry", "admin"), { 200: AuditPage }),
  });
