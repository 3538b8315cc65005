// /owner: the human owner's API (owner key po_…, so an agent cannot loosen its own limits): the
// spending policy, approving or declining what waits, replacing the owner key, and the brake (freezing
// the agent: /owner/agents/{id}/…, for that agent's owner only). /approvals/{id}: an agent reads one of its
// held outflows (what it answered once approved).
import { Elysia, t } from "elysia";
import { Freeze, FreezeBody, RotationBody } from "../agents/model";
import { bearer } from "../auth/keys";
import { door, type Due, type OwnerDue } from "../door";
import { docs, IdParam, paged } from "../http/models";
import { answers } from "../http/responses";
import { setFrozen } from "../profile/freeze";
import { expireApprovalIfDue, expireDueApprovals } from "./decisions";
import { executeApproved } from "./executors";
import { Approval, ApprovalPage, ApprovalQuery, DecisionBody, Policy, PolicyBody, RotatedOwnerKey } from "./model";
import { approvalQueue, approve, decline, getApproval, ownerKeyInForce, policyView, rotateOwnerKey, setPolicy } from "./service";

const DECIDE_ERRORS = ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE"] as const;

export const ownerRoutes = new Elysia({ name: "owners" })
  .use(door)
  .get("/owner/policy", ({ owner, read }) => read(policyView(owner.id)), {
    owner: true,
    ...answers(docs("Owners", "The agent's spending policy and what it leaves today: owner key (po_…) only", "owner", ["FORBIDDEN"]), { 200: Policy }),
  })
  .put("/owner/policy", ({ owner, body, write }) => write(() => setPolicy(owner.id, body)), {
    owner: true,
    body: PolicyBody,
    ...answers(docs("Owners", "Replace the agent's spending policy: owner key (po_…) only", "owner", ["FORBIDDEN"]), { 200: Policy }),
  })
  .get("/owner/approvals", ({ owner, query, read }) => paged(query, (window) => read(approvalQueue(owner.id, { status: query.status }, window), true)), {
    owner: true,
    query: ApprovalQuery,
    due: ({ owner }: OwnerDue) => expireDueApprovals(owner.id),
    ...answers(docs("Owners", "Held outflows and negotiations waiting for (or decided by) the owner, PENDING first", "owner", ["FORBIDDEN"]), { 200: ApprovalPage }),
  })
  // An orchestration (service.ts): the decision commits, then the held request runs again.
  .post("/owner/approvals/:id/approve", ({ owner, params, body }) => approve(owner.id, params.id, body?.termsHash, executeApproved), {
    owner: true,
    params: IdParam,
    body: DecisionBody,
    ...answers(
      docs(
        "Owners",
        "Approve: a held outflow is made now, exactly as held (status APPROVED, or FAILED with the reason); a negotiation is ACCEPTED. While the agent is frozen it is refused (AGENT_FROZEN) and stays PENDING",
        "owner",
        [...DECIDE_ERRORS, "AGENT_FROZEN"],
      ),
      { 200: Approval },
    ),
  })
  .post("/owner/approvals/:id/decline", ({ owner, params, body }) => decline(owner.id, params.id, body?.termsHash), {
    owner: true,
    params: IdParam,
    body: DecisionBody,
    ...answers(docs("Owners", "Decline: a held outflow's hold is released (status DECLINED); a negotiation is REJECTED", "owner", [...DECIDE_ERRORS]), { 200: Approval }),
  })
  // Not idempotent by key (like the agent key's rotation): a replay would have to store the new key.
  .post(
    "/owner/key/rotate",
    ({ owner, headers, body, write }) => write(() => rotateOwnerKey(owner.id, () => ownerKeyInForce(owner.id, bearer(headers.authorization)!), body?.keepRestrictedKeys === true)),
    {
      owner: true,
      body: t.Optional(RotationBody),
      ...answers(
        docs(
          "Owners",
          "Replace the owner key: the new key (po_…) is shown once; the old key, every console session signed in with it and, unless keepRestrictedKeys is true, every restricted key and MCP host grant it made end at once",
          "owner",
          ["FORBIDDEN"],
        ),
        { 200: RotatedOwnerKey },
      ),
    },
  )
  .post("/owner/agents/:id/freeze", ({ owner, body, write }) => write(() => setFrozen(owner.id, "owner", true, body?.reason ?? null)), {
    agentOwner: true,
    params: IdParam,
    body: FreezeBody,
    ...answers(
      docs(
        "Owners",
        "Freeze the agent: every outflow it starts is refused (403 AGENT_FROZEN) until you unfreeze it; its scheduled charges pause, money coming in is credited, escrow settles by its own rules. Freezing a frozen agent changes nothing",
        "owner",
        ["NOT_FOUND"],
      ),
      { 200: Freeze },
    ),
  })
  .post("/owner/agents/:id/unfreeze", ({ owner, body, write }) => write(() => setFrozen(owner.id, "owner", false, body?.reason ?? null)), {
    agentOwner: true,
    params: IdParam,
    body: FreezeBody,
    ...answers(
      docs("Owners", "Lift your freeze: the agent's outflows and its paused charges resume (the operator's freeze, if any, stays until the operator lifts it)", "owner", ["NOT_FOUND"]),
      { 200: Freeze },
    ),
  })
  .get("/approvals/:id", ({ agent, params, read }) => read(getApproval(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: ({ params }: Due<"id">) => expireApprovalIfDue(params.id),
    ...answers(docs("Owners", "One of the caller's outflows held for its owner: status, reason, and once approved what it answered", "agent", ["NOT_FOUND"]), { 200: Approval }),
  });
