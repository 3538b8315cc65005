import { Elysia, t } from "elysia";
import { door, ONCE_ERRORS, type Due } from "../door";
import { AgentIdRef, Amount, Currency, docs, IdParam, Metadata, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { Held } from "../outflows/model";
import { Contract, ContractPage } from "./model";
import { applyContractDue, applyDueDeadlines, cancelContract, CREATE_CONTRACT_ERRORS, createContract, FULFILL_ERRORS, fulfillCondition, getContract, myContracts, signContract } from "./service";

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
const contractDue = ({ params }: Due<"id">) => applyContractDue(params.id);

export const contractRoutes = new Elysia({ prefix: "/contracts", name: "contracts" })
  .use(door)
  .post("", ({ agent, body, once }) => once(() => createContract(agent.id, body)), {
    agent: true,
    once: 201,
    body: t.Object({
      counterpartyId: AgentIdRef(),
      title: t.String({ minLength: 1, maxLength: 200 }),
      description: t.String({ maxLength: 5000 }),
      escrowAmount: Amount({ description: "held from the creator until the contract ends" }),
      currency: Currency,
      conditions: t.Array(Condition, { minItems: 1, maxItems: 20, description: "ids unique within the contract" }),
      // t.Number with multipleOf, not t.Integer: t.Integer would accept the string "30".
      deadlineDays: t.Optional(t.Number({ minimum: 1, maximum: 365, multipleOf: 1, description: "whole days, default 30, counted from creation" })),
    }),
    ...answers(docs("Contracts", "Propose a contract; the escrow is held from the creator", "agent", [...CREATE_CONTRACT_ERRORS, ...ONCE_ERRORS]), { 201: Contract, 202: Held }),
  })
  .get("/mine", ({ agent, query, read }) => paged(query, (window) => read(myContracts(agent.id, window))), {
    agent: true,
    query: PageQuery,
    due: ({ agent }: Due) => applyDueDeadlines(agent.id),
    ...answers(docs("Contracts", "Contracts the caller is a party to, newest first", "agent"), { 200: ContractPage }),
  })
  .get("/:id", ({ agent, params, read }) => read(getContract(agent.id, params.id)), {
    agent: true,
    params: IdParam,
    due: contractDue,
    ...answers(docs("Contracts", "A contract the caller is a party to", "agent", ["NOT_FOUND"]), { 200: Contract }),
  })
  .post("/:id/sign", ({ agent, params, once }) => once(() => signContract(agent.id, params.id)), {
    agent: true,
    once: 200,
    params: IdParam,
    due: contractDue,
    ...answers(docs("Contracts", "Sign as the counterparty: the contract becomes ACTIVE", "agent", ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", ...ONCE_ERRORS]), { 200: Contract }),
  })
  .post("/:id/fulfill", ({ agent, params, body, once }) => once(() => fulfillCondition(agent.id, params.id, body.conditionId)), {
    agent: true,
    once: 200,
    params: IdParam,
    body: t.Object({ conditionId: ConditionId }),
    due: contractDue,
    ...answers(
      docs("Contracts", "Confirm a condition as the creator; the last one pays the escrow to the counterparty (refused while the creator is frozen)", "agent", [...FULFILL_ERRORS, ...ONCE_ERRORS]),
      { 200: Contract },
    ),
  })
  .post("/:id/cancel", ({ agent, params, once }) => once(() => cancelContract(agent.id, params.id)), {
    agent: true,
    once: 200,
    params: IdParam,
    due: contractDue,
    ...answers(docs("Contracts", "Cancel an unsigned contract as the creator; the escrow is returned", "agent", ["NOT_FOUND", "FORBIDDEN", "INVALID_STATE", ...ONCE_ERRORS]), { 200: Contract }),
  });
