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
import { readJson } from "../json";
import type { ApprovalRow, OutflowKind } from "../outflows/approvals";
import type { Sanction } from "../outflows/check";
import type { Answer } from "../outflows/schema";
import type { Executor } from "./decisions";
import { type AgentId } from "../ids";

/** The request each kind of outflow holds (its terms, as the command took them). */
type TermsOf = {
  PAYMENT: Parameters<typeof sendPayment>[1];
  BET: Parameters<typeof createBet>[1];
  BET_ACCEPT: { betId: string };
  LOAN_OFFER: Parameters<typeof createOffer>[1];
  LOAN_BORROW: Parameters<typeof borrow>[1];
  CONTRACT: Parameters<typeof createContract>[1];
  SUBSCRIPTION: Parameters<typeof createSubscription>[1];
  BOOKING: Parameters<typeof book>[1];
  WITHDRAWAL: Parameters<typeof requestWithdrawal>[1];
  X402: PayRequest & { payTo: string };
};
type Held = Exclude<OutflowKind, "X402">;

/** The held request's write op, as the feature that made it runs it. */
const RERUN: { [K in Held]: (agentId: AgentId, terms: TermsOf[K], sanction: Sanction) => Op<Answer> } = {
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

/**
 * The terms `row` holds, as `kind`'s command took them: stored by holdForApproval as the request came
 * (outflows/approvals.ts). The column cannot say which request it holds; the row's kind does.
 */
function termsOf<K extends OutflowKind>(row: ApprovalRow, kind: K): TermsOf[K] {
  if (row.kind !== kind) throw new Error(`approval ${row.id} holds ${row.kind}, not ${kind}`);
  return readJson(row.terms) as TermsOf[K];
}

function rerun<K extends Held>(kind: K, row: ApprovalRow, sanction: Sanction): Op<Answer> {
  const command: (agentId: AgentId, terms: TermsOf[K], sanction: Sanction) => Op<Answer> = RERUN[kind];
  return command(row.agentId, termsOf(row, kind), sanction);
}

const isHeld = (kind: OutflowKind): kind is Held => kind !== "X402";

export const executeApproved: Executor = async (row, grant) => {
  const sanction = { grant };
  const kind = row.kind;
  if (isHeld(kind)) return write(() => actingAs(row.keyId, rerun(kind, row, sanction)));
  // payTo was held with the terms (the grant holds only for that payee); the request is the rest.
  const { payTo: _payTo, ...request } = termsOf(row, "X402");
  // What the resource answered is kept with the approval: the agent reads it at GET /approvals/{id}.
  // Every answer of payResource is an object ({ payment, resource }, or a replay of one).
  const { body } = await payResource(row.agentId, request, { agentId: row.agentId, keyId: row.keyId, scopeKeyId: row.keyId, key: undefined, route: "POST /x402/pay", body: request }, sanction);
  return body as Answer;
};
