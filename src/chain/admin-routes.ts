// The operator's view of the chain: the treasury, the deposit watcher, withdrawals in flight, every
// agent's withdrawals by state (the stuck ones first), and explaining a treasury movement the service
// did not make.
import { t } from "elysia";
import { AgentIdRef, docs, paged, PageQuery } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { answers } from "../http/responses";
import { chainSettings } from "./client";
import { Acknowledgement, ChainStatus, QueuedWithdrawalPage } from "./model";
import { chainStatus } from "./status";
import { acknowledgeTransfer } from "./watcher";
import { withdrawalQueue } from "./withdrawals";

export const chainAdminRoutes = operatorRoutes("chain-admin")
  .get(
    "/chain",
    () => chainStatus(),
    { ...answers(docs("Operator", "Treasury balances, deposit watcher position and withdrawals in flight", "admin", ["CHAIN_UNAVAILABLE"]), { 200: ChainStatus }) },
  )
  .get("/withdrawals", ({ query, read }) => paged(query, (window) => read(withdrawalQueue({ status: query.status, agentId: query.agentId }, window))), {
    query: t.Object({
      ...PageQuery.properties,
      status: t.Optional(t.Union([t.Literal("PENDING"), t.Literal("SUBMITTED"), t.Literal("CONFIRMED"), t.Literal("FAILED")], { description: "only withdrawals in this state (SUBMITTED: sent, waiting for the chain)" })),
      agentId: t.Optional(AgentIdRef({ description: "only this agent's" })),
    }),
    ...answers(
      docs("Operator", "Withdrawals across agents, oldest first, each with its age: with status=SUBMITTED, those waiting on the chain longest come first", "admin"),
      { 200: QueuedWithdrawalPage },
    ),
  })
  .post(
    "/chain/acknowledge",
    ({ body, write }) => write(() => acknowledgeTransfer(body.txHash, body.logIndex, body.reason), `${body.txHash}:${body.logIndex}`),
    {
      action: "chain.acknowledge",
      // Without a chain there is nothing to acknowledge.
      beforeHandle() {
        chainSettings();
      },
      body: t.Object({
        txHash: t.String({ pattern: "^0x[0-9a-fA-F]{64}$" }),
        logIndex: t.Integer({ minimum: 0, maximum: 1_000_000 }),
        reason: t.String({ minLength: 1, maxLength: 500, description: "what the movement was, e.g. \"moved to cold storage\"" }),
      }),
      ...answers(docs("Operator", "Explain a treasury transfer the service did not make (funding moved by hand), so the chain reconciliation counts it", "admin", ["NOT_FOUND", "CHAIN_UNAVAILABLE"]), { 200: Acknowledgement }),
    },
  );
