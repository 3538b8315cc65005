// What an outflow is: every path by which an agent's money leaves it (src/outflows/check.ts). Its own
// module, below the approvals table that stores it and the records that read it.
export const OUTFLOW_KINDS = ["PAYMENT", "X402", "BET", "BET_ACCEPT", "LOAN_OFFER", "LOAN_BORROW", "CONTRACT", "SUBSCRIPTION", "BOOKING", "WITHDRAWAL"] as const;
export type OutflowKind = (typeof OUTFLOW_KINDS)[number];
