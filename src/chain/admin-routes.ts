// The operator's view of the chain: the treasury, the deposit watcher, withdrawals in flight, and
// explaining a treasury movement the service did not make.
import { t } from "elysia";
import { docs } from "../http/models";
import { operatorRoutes } from "../door/operator";
import { answers } from "../http/responses";
import { chainSettings } from "./client";
import { Acknowledgement, ChainStatus } from "./model";
import { chainStatus } from "./status";
import { acknowledgeTransfer } from "./watcher";

export const chainAdminRoutes = operatorRoutes("chain-admin")
  .get(
    "/chain",
    () => chainStatus(),
    { ...answers(docs("Operator", "Treasury balances, deposit watcher position and withdrawals in flight", "admin", ["CHAIN_UNAVAILABLE"]), { 200: ChainStatus }) },
  )
  .post(
    "/chain/acknowledge",
    ({ body, write }) => write(() => acknowledgeTransfer(body.txHash, body.logIndex, body.reason)),
    {
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
