// What runs when the owner approves a held outflow: the request the agent made, again, exactly as it
// was held, as the agent, with the owner's grant (which lets it past the approval amount, once).
import { acceptBet, createBet } from "../betting/service";
import { requestWithdrawal } from "../chain/withdrawals";
import { createContract } from "../contracts/service";
import { write } from "../db";
import { createOffer } from "../lending/offers";
import { borrow } from "../lending/service";
import { book } from "../marketplace/bookings";
import { sendPayment } from "../payments/service";
import { createSubscription } from "../subscriptions/service";
import { payResource, type PayRequest } from "../x402/pay";
import type { OutflowKind } from "../outflows/approvals";
import type { Executor } from "./decisions";
import type { Sanction } from "../outflows/check";

type Rerun = (agentId: string, terms: any, sanction: Sanction) => Promise<unknown>;

const RERUN: Record<OutflowKind, Rerun> = {
  PAYMENT: (agentId, terms, sanction) => write(() => sendPayment(agentId, terms, sanction)),
  X402: async (agentId, terms, sanction) => {
    // payTo was held with the terms (the grant holds only for that payee); the request is the rest.
    const { payTo: _payTo, ...request } = terms as PayRequest & { payTo: string };
    // What the resource answered is kept with the approval: the agent reads it at GET /approvals/{id}.
    return (await payResource(agentId, request, { agentId, keyId: null, key: undefined, route: "POST /x402/pay", body: request }, sanction)).body;
  },
  BET: (agentId, terms, sanction) => write(() => createBet(agentId, terms, sanction)),
  BET_ACCEPT: (agentId, terms, sanction) => write(() => acceptBet(agentId, terms.betId, sanction)),
  LOAN_OFFER: (agentId, terms, sanction) => write(() => createOffer(agentId, terms, sanction)),
  LOAN_BORROW: (agentId, terms, sanction) => write(() => borrow(agentId, terms, sanction)),
  CONTRACT: (agentId, terms, sanction) => write(() => createContract(agentId, terms, sanction)),
  SUBSCRIPTION: (agentId, terms, sanction) => write(() => createSubscription(agentId, terms, sanction)),
  BOOKING: (agentId, terms, sanction) => write(() => book(agentId, terms, sanction)),
  WITHDRAWAL: (agentId, terms, sanction) => write(() => requestWithdrawal(agentId, terms, sanction)),
};

export const executeApproved: Executor = (row, grant) => RERUN[row.kind](row.agentId, JSON.parse(row.terms), { grant });
