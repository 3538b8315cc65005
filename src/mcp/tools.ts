// The MCP tools: one per thing an agent does with its bank, each the route it calls, a description
// written for a model (what it does, what it costs, when to use it) and its annotations. Input and
// output schemas are not written here: they are read from the route's own `t` schemas (see catalogue.ts).

/** The MCP spec's tool annotations: hints a client uses to decide what to confirm with its user or retry. */
export type Annotations = { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

type Method = "GET" | "POST" | "PUT" | "DELETE";
/** `waits`: what the call waits on outside the bank (said in its progress notifications and log line). */
export type ToolSpec = { name: string; method: Method; path: string; description: string; hints?: Partial<Annotations>; waits?: string };

/**
 * What the method says of a tool: a GET only reads (again and again); a PUT replaces and a DELETE
 * removes, and the same call again changes nothing more; a POST adds, and the same call again adds
 * again. A POST that takes an idempotencyKey is still not idempotent: the key is optional, and the
 * same arguments without one repeat the effect.
 */
const BY_METHOD: Record<Method, Annotations> = {
  GET: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  PUT: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  DELETE: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  POST: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};
/** Spends money (it leaves your available balance, to another agent or into escrow) or ends something: no call undoes it. */
const DESTRUCTIVE = { destructiveHint: true };
/** Reaches beyond the bank: the chain, or a URL outside it. */
const OUTSIDE = { openWorldHint: true };
/** The same call again changes nothing more. */
const REPEATABLE = { idempotentHint: true };

export const annotationsOf = (tool: ToolSpec): Annotations => ({ ...BY_METHOD[tool.method], ...tool.hints });

const RETRY = " Pass an idempotencyKey (any unique string, e.g. a UUID) and reuse it if you retry this call: the service then applies it once and replays the first answer.";
const AMOUNTS = " Amounts are numbers in major units (12.5 USDC), with at most the currency's decimals (USDC/USDT 6, USD/EUR 2, BTC 8).";
const OWNER = " Your owner's policy applies: above its limits it fails with POLICY_LIMIT_EXCEEDED or COUNTERPARTY_NOT_ALLOWED; above its approval amount the money is held and the answer is AWAITING_APPROVAL with an approvalId (get_approval tells you when your owner decided).";

export const TOOLS: ToolSpec[] = [
  { name: "get_profile", method: "GET", path: "/agents/me", description: "Your own agent profile: id, name, owner, reputation score and tier. Free. Use it to learn your agent id." },
  { name: "get_balances", method: "GET", path: "/wallets/balance", description: "Your balances in every currency: available (spendable) and held (locked in escrow by loans, bets, contracts). Free. Check it before paying." },
  { name: "get_history", method: "GET", path: "/wallets/history", description: "Movements of your available balance, newest first (payments, deposits, escrow, loans, x402). Free. Paginate with limit, and after=pagination.nextAfter for the next page." },
  { name: "get_limits", method: "GET", path: "/payments/my-limits", description: "Your per-transaction limit (in USD value) from your reputation tier, every tier's limit, and how to raise yours. Free. A payment above it fails with TIER_LIMIT_EXCEEDED." },
  { name: "get_reputation", method: "GET", path: "/agents/:id/reputation", description: "Any agent's reputation score, tier and latest score events, by agent id. Free. Use it to judge a counterparty before dealing with it." },
  { name: "send_payment", method: "POST", path: "/payments/send", description: `Pay another agent at once from your available balance. Costs the amount; +1 to your reputation. Fails if the recipient blocked you, the amount is above your tier limit, or you lack funds.${AMOUNTS}${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "get_payment", method: "GET", path: "/payments/:id", description: "One payment you sent or received, by id, with its reason. Free. Use it to confirm a payment someone tells you about." },
  { name: "withdraw", method: "POST", path: "/wallets/withdraw", description: `Withdraw USDC to an address on the layer-2 chain (to another agent's deposit address it settles internally at once). Costs the amount; PENDING until confirmed on chain, FAILED returns the funds.${OWNER}${RETRY}`, hints: { ...DESTRUCTIVE, ...OUTSIDE }, waits: "submitting the withdrawal to the chain" },
  { name: "get_blockchain_wallet", method: "GET", path: "/wallets/blockchain", description: "Your deposit address on the layer-2 chain and its on-chain USDC balance. Free. Send USDC there to fund your wallet.", hints: OUTSIDE },
  { name: "list_withdrawals", method: "GET", path: "/wallets/withdrawals", description: "Your withdrawals and their status (PENDING, SUBMITTED, CONFIRMED, FAILED), newest first. Free. Use it to follow a withdrawal until it is confirmed." },
  { name: "pay_x402_resource", method: "POST", path: "/x402/pay", description: `Fetch an HTTP resource that may answer 402 Payment Required (x402 v1 or v2) and pay its USDC price, up to maxAmount: exact (the price), upto (the maximum held, only what the resource charged paid) or batch-settlement (a deposit held on a channel, each request paid from it: list_x402_channels, close_x402_channel). Returns the resource's answer and the payment. The payment is PENDING until the chain shows it used (SETTLED) or expired unused (REFUNDED, within about two minutes); check with get_x402_payment.${OWNER}${RETRY}`, hints: { ...DESTRUCTIVE, ...OUTSIDE }, waits: "fetching and paying the x402 resource" },
  { name: "get_approval", method: "GET", path: "/approvals/:id", description: "An outflow of yours held for your owner's approval: PENDING, APPROVED (with what it answered), DECLINED, EXPIRED or FAILED (with the reason). Free." },
  { name: "get_x402_payment", method: "GET", path: "/x402/payments/:id", description: "One of your x402 payments with its current status (PENDING, SETTLED, REFUNDED). Free." },
  { name: "list_x402_channels", method: "GET", path: "/x402/channels", description: "Your x402 batch-settlement channels, newest first: the deposit held for each, what was charged on it, its seller and status (OPEN, CLOSING, CLOSED). Free. pay_x402_resource opens one when a resource is paid per request over a channel." },
  { name: "close_x402_channel", method: "POST", path: "/x402/channels/:id/close", description: "Close one of your x402 channels: the seller is asked to refund what it did not charge; if it does not, the escrow's timed withdrawal starts (CLOSING, finished by the service after the channel's delay). What was not charged comes back to your available balance once the chain shows it. Free (the service pays the gas). Fails with INVALID_STATE while the deposit could still land or the delay runs: call it again later.", hints: { ...OUTSIDE, ...REPEATABLE }, waits: "the chain and the seller closing the channel" },
  { name: "send_message", method: "POST", path: "/messages", description: `Send a direct message to another agent (at most 20 per hour to the same agent). Free.${RETRY}` },
  { name: "list_inbox", method: "GET", path: "/messages/inbox", description: "Messages and event notices you received (payments, negotiation turns, loans, bets, ...), newest first; unreadOnly=true for new ones. Free. Poll it if you have no webhook." },
  { name: "mark_message_read", method: "POST", path: "/messages/:messageId/read", description: "Mark a message you received as read, once you have handled it, so that it leaves unreadOnly=true and the unread count. Free.", hints: REPEATABLE },
  { name: "get_unread_count", method: "GET", path: "/messages/unread-count", description: "How many inbox items are unread. Free. Use it to check cheaply whether anything new arrived before reading the inbox." },
  { name: "start_negotiation", method: "POST", path: "/negotiations", description: `Open a negotiation with another agent about a subject, with a free-form offer (an offer with amount and currency can need a human owner's approval above the service's threshold). At most 3 open per pair. Free.${RETRY}` },
  { name: "counter_offer", method: "POST", path: "/negotiations/:id/counter", description: "Answer the current offer with your own (only when it is your turn; at most one counter per 30 s between the same two agents). Free." },
  { name: "accept_offer", method: "POST", path: "/negotiations/:id/accept", description: "Accept the current offer (only when it is your turn). Above the approval threshold it waits for a human owner (AWAITING_HUMAN_APPROVAL). Free; moves no money by itself.", hints: DESTRUCTIVE },
  { name: "reject_negotiation", method: "POST", path: "/negotiations/:id/reject", description: "Reject and close a negotiation (either party, any time it is open) when you will not agree to its terms. Free.", hints: DESTRUCTIVE },
  { name: "list_negotiations", method: "GET", path: "/negotiations/mine", description: "Negotiations you take part in, newest first, with whose turn it is. Free." },
  { name: "get_negotiation", method: "GET", path: "/negotiations/:id", description: "One negotiation with its current offer and history. Free." },
  { name: "offer_loan", method: "POST", path: "/lending/offers", description: `Offer a loan: the amount is held from your available balance in escrow until a borrower takes it, you cancel it, or it expires. Earns the flat interestRate (percent over the whole term) if repaid; the borrower's collateral is yours on default.${AMOUNTS}${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "list_loan_offers", method: "GET", path: "/lending/offers", description: "Open loan offers from other agents, newest first. Free. Use it to find a loan to take with borrow." },
  { name: "cancel_loan_offer", method: "DELETE", path: "/lending/offers/:offerId", description: "Cancel your open loan offer when you no longer want to lend; the held amount returns to you. Free." },
  { name: "borrow", method: "POST", path: "/lending/borrow", description: `Take a loan offer: collateral (amount × collateralPercent / 100) is held from you and the principal is paid to you now. You owe principal plus interest by the due date; repaying on time earns +5 reputation, default costs the collateral and −10. Principal plus interest counts as an outflow to the lender: your tier limit applies to it (TIER_LIMIT_EXCEEDED), and above the approval amount your collateral is what is held.${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "repay_loan", method: "POST", path: "/lending/repay/:loanId", description: `Repay part or all of a loan you took; full repayment returns your collateral. Costs the amount.${RETRY}`, hints: DESTRUCTIVE },
  { name: "list_my_loans", method: "GET", path: "/lending/my-loans", description: "Loans you made or took, with amounts due and status. Free. Use it to see what you owe and when, before repay_loan." },
  { name: "create_bet", method: "POST", path: "/betting", description: `Create a bet that a condition will be met; your stake is held in escrow. Another agent accepts with an equal stake; the winner takes both (+2 reputation). Oracle types API or ORACLE_NET settle automatically.${AMOUNTS}${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "cancel_bet", method: "DELETE", path: "/betting/:betId", description: "Withdraw a bet you created while nobody has accepted it; your held stake returns to you. Free." },
  { name: "list_open_bets", method: "GET", path: "/betting/open", description: "Open bets of other agents you could accept, newest first. Free. Use it to find a bet to take with accept_bet." },
  { name: "accept_bet", method: "POST", path: "/betting/:betId/accept", description: `Accept an open bet: an equal stake is held from you; you win if the condition is NOT met.${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "report_bet_outcome", method: "POST", path: "/betting/:betId/resolve", description: "Report a matched bet's outcome (MET, NOT_MET or VOID) as a party; when both parties report the same, it settles; different reports dispute it. Free.", hints: DESTRUCTIVE },
  { name: "list_my_bets", method: "GET", path: "/betting/my-bets", description: "Bets you created or accepted, with their status and outcome. Free. Use it to find a matched bet whose outcome you must report." },
  { name: "propose_contract", method: "POST", path: "/contracts", description: `Propose a conditional contract to another agent: the escrow amount is held from you, paid to them when you confirm every condition, returned to you if unsigned by the deadline or breached.${AMOUNTS}${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "sign_contract", method: "POST", path: "/contracts/:id/sign", description: `Sign a contract proposed to you (counterparty only): it becomes ACTIVE. Free.${RETRY}` },
  { name: "fulfill_condition", method: "POST", path: "/contracts/:id/fulfill", description: `Confirm one condition of your ACTIVE contract (creator only); confirming the last pays the escrow to the counterparty (+3 reputation to them).${RETRY}`, hints: DESTRUCTIVE },
  { name: "cancel_contract", method: "POST", path: "/contracts/:id/cancel", description: `Cancel a contract you proposed that is not signed yet; the escrow returns to you.${RETRY}`, hints: DESTRUCTIVE },
  { name: "list_my_contracts", method: "GET", path: "/contracts/mine", description: "Contracts you are a party to, with their status and conditions. Free. Use it to find a contract to sign or a condition to confirm." },
  { name: "subscribe", method: "POST", path: "/subscriptions", description: `Pay another agent every day, week or month; the first charge is taken now, then one per period. Three failed charges in a row cancel it.${AMOUNTS}${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "cancel_subscription", method: "DELETE", path: "/subscriptions/:id", description: "Cancel a subscription you pay or receive; periods already due are charged first. Free." },
  { name: "list_subscriptions", method: "GET", path: "/subscriptions/mine", description: "Subscriptions you pay or receive (role=payer or recipient to filter). Free. Use it to find one to cancel or to see what is charged." },
  { name: "discover_services", method: "GET", path: "/services/discover", description: "Search the marketplace's active service listings by category, currency and price. Free." },
  { name: "get_service", method: "GET", path: "/services/:id", description: "One marketplace listing with its price and pricing unit. Free. Use it before get_quote to see how it is priced." },
  { name: "list_service", method: "POST", path: "/services", description: `Offer a service on the marketplace (you are the provider). Free.${RETRY}` },
  { name: "get_quote", method: "POST", path: "/quotes", description: `Price a listing for your need (nights, guests or hours as its pricing unit requires); the quote is valid 15 minutes. Free.${RETRY}` },
  { name: "book_service", method: "POST", path: "/bookings", description: `Book a quote: pays the provider the quoted amount now (+1 reputation). A quote books once.${OWNER}${RETRY}`, hints: DESTRUCTIVE },
  { name: "list_bookings", method: "GET", path: "/bookings/mine", description: "Bookings you made or received, with the amount paid and the service. Free. Use it to confirm a booking went through." },
  { name: "set_webhook", method: "PUT", path: "/agents/me/webhook", description: "Set the URL that receives your event notifications (signed, Standard Webhooks), or null to stop; returns the signing secret. Free.", hints: OUTSIDE },
  { name: "rotate_webhook_secret", method: "POST", path: "/agents/me/webhook/secret", description: "Replace your webhook signing secret when the old one may have leaked (returned once; deliveries are signed with it from now on). Free.", hints: DESTRUCTIVE },
  { name: "resend_webhook_delivery", method: "POST", path: "/agents/me/webhook/deliveries/:id/resend", description: "Send the event of a failed webhook delivery again, once, now (deliveries are never retried on their own). Free.", hints: OUTSIDE },
  { name: "list_webhook_deliveries", method: "GET", path: "/agents/me/webhook/deliveries", description: "Every delivery attempt to your webhook with its outcome. Free. Use it to find a failed delivery to resend." },
  { name: "block_agent", method: "POST", path: "/agents/me/block", description: "Block an agent: it can no longer pay, message, negotiate or contract with you. Free.", hints: REPEATABLE },
  { name: "unblock_agent", method: "DELETE", path: "/agents/me/block/:agentId", description: "Unblock an agent you blocked, so that it can pay, message, negotiate and contract with you again. Free." },
];
