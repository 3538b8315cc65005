import { Elysia, t } from "elysia";
import { auth } from "../auth/macros";
import { Amount, Currency, docs, IdParam, Metadata, paged, PageQuery, Uuid } from "../http/models";
import { mutation } from "../auth/mutation";
import { applyContractDue, cancelContract, createContract, fulfillCondition, getContract, myContracts, signContract } from "./service";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Contract, ContractPage } from "./model";

const ConditionId = t.String({ minLength: 1, maxLength: 64 });

// Nested objects are not made strict by the app's normalize: false, so unknown fields are refused here.
const Condition = t.Object(
  {
    id: ConditionId,
    type: t.String({ minLength: 1, maxLength: 64 }),
    description: t.String({ maxLength: 1000 }),
    params: Metadata,
  },
  { additionalProperties: false },
);

export const contractRoutes = new Elysia({ prefix: "/contracts", name: "contracts" })
  .use(auth)
  .post(
    "",
    ({ agent, body, headers, request, set }) =>
      mutation({ agentId: agent.id, headers, request, body, set }, 201, () => createContract(agent.id, body)),
    {
      agent: true,
      body: t.Object({
        counterpartyId: Uuid,
        title: t.String({ minLength: 1, maxLength: 200 }),
        description: t.String({ maxLength: 5000 }),
        escrowAmount: Amount({ description: "held from the creator until the contract ends" }),
        currency: Currency,
        conditions: t.Array(Condition, { minItems: 1, maxItems: 20, description: "ids unique within the contract" }),
        // t.Number with multipleOf, not t.Integer: t.Integer would accept the string "30".
        deadlineDays: t.Optional(t.Number({ minimum: 1, maximum: 365, multipleOf: 1, description: "whole days, default 30, counted from creation" })),
      }),
      ...answers(docs("Contracts", "Propose a contract; the escrow is held from the creator", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INSUFFICIENT_BALANCE", "AGENT_FROZEN", "TIER_LIMIT_EXCEEDED", "POLICY_LIMIT_EXCEEDED", "COUNTERPARTY_NOT_ALLOWED", "IDEMPOTENCY_KEY_REUSED",
      ]), { 201: Contract, 202: Held }),
    },
  )
  .get(
    "/mine",
    ({ agent, query }) => paged(query, (window) => myContracts(agent.id, window)),
    { agent: true, query: PageQuery, ...answers(docs("Contracts", "Contracts the caller is a party to, newest first", "agent"), { 200: ContractPage }) },
  )
  .get(
    "/:id",
    ({ agent, params }) => getContract(agent.id, params.id),
    { agent: true, params: IdParam, ...answers(docs("Contracts", "A contract the caller is a party to", "agent", ["NOT_FOUND"]), { 200: Contract }) },
  )
  .post(
    "/:id/sign",
    async ({ agent, params, headers, request, set }) => {
      await applyContractDue(params.id);
      return mutation({ agentId: agent.id, headers, request, set }, 200, () => signContract(agent.id, params.id));
    },
    {
      agent: true,
      params: IdParam,
      ...answers(docs("Contracts", "Sign as the counterparty: the contract becomes ACTIVE", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Contract }),
    },
  )
  .post(
    "/:id/fulfill",
    async ({ agent, params, body, headers, request, set }) => {
      await applyContractDue(params.id);
      return mutation({ agentId: agent.id, headers, request, body, set }, 200, () => fulfillCondition(agent.id, params.id, body.conditionId));
    },
    {
      agent: true,
      params: IdParam,
      body: t.Object({ conditionId: ConditionId }),
      ...answers(docs("Contracts", "Confirm a condition as the creator; the last one pays the escrow to the counterparty (refused while the creator is frozen)", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "AGENT_FROZEN", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Contract }),
    },
  )
  .post(
    "/:id/cancel",
    async ({ agent, params, headers, request, set }) => {
      await applyContractDue(params.id);
      return mutation({ agentId: agent.id, headers, request, set }, 200, () => cancelContract(agent.id, params.id));
    },
    {
      agent: true,
      params: IdParam,
      ...answers(docs("Contracts", "Cancel an unsigned contract as the creator; the escrow is returned", "agent", [
        "NOT_FOUND", "FORBIDDEN", "INVALID_STATE", "IDEMPOTENCY_KEY_REUSED",
      ]), { 200: Contract }),
    },
  );
