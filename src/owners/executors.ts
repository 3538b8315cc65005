// What runs when the owner approves a held outflow: the request the agent made, again, exactly as it
// was held, as the agent and as the restricted key that asked (its chain must still be in force: a
// revoked or expired key's approval fails), with the owner's grant (which lets it past the approval
// amount, once).
import { acceptBet, createBet } from "../betting/service";
import { requestWithdrawal } from "../chain/withdrawals";
import { createContract } from "../contracts/service";
import { actingAs, write, type Op } from "../db";
import { createOffer } from "../lending/offers";
import { borrow } from "../lending/service";
import { book } from "../marketplace/bookings";
import { sendPayment } from "../payments/service";
import { createSubscription } from "../subscriptions/service";
import { payResource, type PayRequest } from "../x402/pay";
import type { OutflowKind } from "../outflows/approvals";
import type { Executor } from "./decisions";
import type { Sanction } from "../outflows/check";

/** The held request's write op, as the feature that made it runs it. */
type Rerun = (agentId: string, terms: any, sanction: Sanction) => Op<unknown>;

const RERUN: Record<Exclude<OutflowKind, "X402">, Rerun> = {
  PAYMENT: (agentId, terms, sanction) => sendPayment(agentId, terms, sanction),
  BET: (agentId, terms, sanction) => createBet(agentId, terms, sanction),
  BET_ACCEPT: (agentId, terms, sanction) => acceptBet(agentId, terms.betId, sanction),
  LOAN_OFFER: (agentId, terms, sanction) => createOffer(agentId, terms, sanction),
  LOAN_BORROW: (agentId, terms, sanction) => borrow(agentId, terms, sanction),
  CONTRACT: (agentId, terms, sanction) => createContract(agentId, terms, sanction),
  SUBSCRIPTION: (agentId, terms, sanction) => createSubscription(agentId, terms, sanction),
  BOOKING: (agentId, terms, sanction) => book(agentId, terms, sanction),
  WITHDRAWAL: (agentId, terms, sanction) => requestWithdrawal(agentId, terms, sanction),
};

export const executeApproved: Executor = async (row, grant) => {
  const terms = JSON.parse(row.terms);
  const sanction = { grant };
  const kind = row.kind;
  if (kind !== "X402") return write(() => actingAs(row.keyId, RERUN[kind](row.agentId, terms, sanction)));
  // payTo was held with the terms (the grant holds only for that payee); the request is the rest.
  const { payTo: _payTo, ...request } = terms as PayRequest & { payTo: string };
  // What the resource answered is kept with the approval: the agent reads it at GET /approvals/{id}.
  return (await payResource(row.agentId, request, { agentId: row.agentId, keyId: row.keyId, scopeKeyId: row.keyId, key: undefined, route: "POST /x402/pay", body: request }, sanction)).body;
};
