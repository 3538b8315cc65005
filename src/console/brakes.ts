// The console's brakes, as pages: freezing and unfreezing the agent (each after a confirmation; a banner
// on every page while it is frozen), and stopping what the agent committed to from the Activity page —
// cancelling a subscription, withdrawing an open loan offer or an untaken bet — each after a confirmation
// that repeats the amount, through the service the API uses. All of them are allowed while the agent is
// frozen: they only bring money back. The routes are brakes-routes.ts.
import { BRAKES, type FreezeState } from "../agents/freeze";
import { namesOf } from "../agents/service";
import { applyBetDue, cancelBet, getBet } from "../betting/service";
import { type Op } from "../db";
import { invalidState, notFound } from "../errors";
import { applyOfferDue, cancelOffer, lenderOffer } from "../lending/offers";
import { applySubscriptionDue, cancelSubscription, getSubscription } from "../subscriptions/service";
import { amountInWords, timeTag } from "./format";
import { csrfField, html, raw, type Writer } from "./views";
import { type AgentId } from "../ids";


/** On every page while a brake is on: who froze it, since when and why, and (for the owner's brake) the way to lift it. */
export function frozenBanner(state: FreezeState): string {
  const parts = BRAKES.flatMap((brake) => {
    const on = state.brakes[brake];
    if (!on) return [];
    const why = on.reason ? raw(html` (“${on.reason}”)`) : "";
    return [html`by ${brake === "owner" ? "you" : "the operator"} since ${raw(timeTag(on.since))}${why}`];
  });
  const lift = state.brakes.owner ? raw(html`<div class="actions"><a class="button plain" href="/console/unfreeze">Unfreeze…</a></div>`) : "";
  return html`<section class="frozen" id="frozen-banner" role="status"><strong>This agent is frozen</strong> ${raw(parts.join("; "))}. Nothing it starts moves money —
payments, payments for web resources, withdrawals, loans, bets, contracts, bookings and its subscriptions' charges wait — while money coming in is still credited.${lift}</section>`;
}

const FREEZE_EFFECT = html`<ul><li>all money leaving the agent that it starts — payments, payments for web resources (x402), withdrawals, loan offers and borrowing, bets, contracts, bookings, new subscriptions — is refused, whichever way it asks (API or MCP) and with whichever of its keys;</li>
<li>it cannot pay out what is set aside to the other side (confirm a contract's last condition, concede a bet); it can still repay its loans;</li>
<li>its subscriptions' charges pause: nothing is charged and nothing counts as a failed charge; once unfrozen, each period missed is charged once;</li>
<li>approvals that wait for you stay waiting (you can still decline them);</li>
<li>money coming in is credited, and what is already set aside settles by its own rules (contract deadlines, loan defaults, bets the operator or an oracle settles);</li>
<li>you can still cancel its subscriptions and withdraw its loan offers and open bets from Activity.</li></ul>`;

export function confirmFreeze(csrf: string): string {
  return html`<section class="confirm danger"><p>Freeze the agent now? Until you unfreeze it:</p>${raw(FREEZE_EFFECT)}
<form method="post" action="/console/freeze">${csrfField(csrf)}<label for="reason">Why (kept with the record; optional)</label><input id="reason" name="reason" maxlength="500" autocomplete="off">
<div class="actions"><button type="submit" class="danger">Yes, freeze the agent</button><a class="button plain" href="/console">Cancel</a></div></form></section>`;
}

export function confirmUnfreeze(state: FreezeState, csrf: string): string {
  const operator = state.brakes.operator ? raw(html`<p><strong>The operator has frozen it too:</strong> it stays frozen until the operator lifts that freeze.</p>`) : "";
  return html`<section class="confirm"><p>Lift your freeze? The agent may send money again (within its policy and limits), and its subscriptions charge every period they missed, each once.</p>${operator}
<form method="post" action="/console/unfreeze">${csrfField(csrf)}<div class="actions"><button type="submit">Yes, unfreeze the agent</button><a class="button plain" href="/console">Cancel</a></div></form></section>`;
}

/** After a freeze or an unfreeze (the banner above says what is in force). */
export function brakeOutcome(state: FreezeState & { changed: boolean }, froze: boolean): string {
  const { changed } = state;
  const done = froze ? (changed ? "The agent is frozen." : "The agent was already frozen by you; nothing changed.") : changed ? "Your freeze is lifted." : "You had not frozen the agent; nothing changed.";
  const still = !froze && state.frozen ? " It stays frozen by the operator." : "";
  return html`<section><p class="ok" id="brake-outcome" role="status">${done}${still}</p><p><a href="/console/activity">Activity</a> · <a href="/console">Overview</a></p></section>`;
}

/** What the Activity page can stop, each with what its confirmation says and the service that stops it. */
type Stoppable = {
  /** Its due transition (an expiry, a charge), applied before it is described or stopped. */
  due(id: string): Promise<unknown>;
  /** A read: the item as a confirmation names it, and its amount; refuses (409) one that can no longer be stopped. */
  describe(agentId: AgentId, id: string, w: Writer): Op<{ what: ReturnType<typeof raw>; amount: number; currency: string }>;
  verb: string;
  effect: string;
  /** The write op that stops it. */
  stop(agentId: AgentId, id: string): Op<unknown>;
};

export const STOPPABLE: Record<"subscription" | "offer" | "bet", Stoppable> = {
  subscription: {
    due: applySubscriptionDue,
    *describe(agentId, id, w) {
      const subscription = yield* getSubscription(agentId, id);
      if (subscription.status === "CANCELLED") throw invalidState("the subscription is already cancelled");
      const other = subscription.payerId === agentId ? subscription.recipientId : subscription.payerId;
      const names = yield* namesOf([other]);
      const direction = subscription.payerId === agentId ? "to" : "from";
      return { what: raw(html`the ${subscription.frequency.toLowerCase()} subscription of ${w.plain(subscription.amount, subscription.currency)} ${direction} ${w.name(other, names)}`), amount: subscription.amount, currency: subscription.currency };
    },
    verb: "Cancel",
    effect: "No further period is charged (if the agent is frozen, the periods it missed are not charged either); what was charged stays paid. Both parties are told.",
    stop: cancelSubscription,
  },
  offer: {
    due: applyOfferDue,
    *describe(agentId, id, w) {
      const offer = yield* lenderOffer(agentId, id);
      if (offer.status !== "OPEN") throw invalidState(`the offer is ${offer.status}`);
      return { what: raw(html`the loan offer of ${w.plain(offer.amount, offer.currency)} at ${offer.interestRate} % for ${offer.durationDays} days`), amount: offer.amount, currency: offer.currency };
    },
    verb: "Withdraw",
    effect: "Nobody can take it any more; the held amount goes back to the agent's balance now.",
    stop: cancelOffer,
  },
  bet: {
    due: applyBetDue,
    *describe(agentId, id, w) {
      const bet = yield* getBet(agentId, id);
      // Anyone may see an open bet; only its creator's owner withdraws it (as cancelBet answers others).
      if (bet.creatorId !== agentId) throw notFound("bet");
      if (bet.status !== "OPEN") throw invalidState(`the bet is ${bet.status}: only an open bet can be withdrawn`);
      return { what: raw(html`the open bet “${bet.condition}” with a stake of ${w.plain(bet.amount, bet.currency)}`), amount: bet.amount, currency: bet.currency };
    },
    verb: "Withdraw",
    effect: "Nobody can accept it any more; the held stake goes back to the agent's balance now.",
    stop: cancelBet,
  },
};
export type StoppableKind = keyof typeof STOPPABLE;

/** The confirmation of stopping one item: what, the amount in words, what happens. */
export function* confirmStop(kind: StoppableKind, agentId: AgentId, id: string, csrf: string, w: Writer): Op<string> {
  const { describe, verb, effect } = STOPPABLE[kind];
  const item = yield* describe(agentId, id, w);
  const words = amountInWords(item.amount, item.currency);
  return html`<section class="confirm danger"><h2>${verb} ${item.what}?</h2><p class="big" id="amount-in-words">${words}</p><p>${effect}</p>
<form method="post" action="/console/activity/${kind}/${id}">${csrfField(csrf)}<div class="actions"><button type="submit" class="danger">Yes, ${verb.toLowerCase()} it</button><a class="button plain" href="/console/activity">Back</a></div></form></section>`;
}
