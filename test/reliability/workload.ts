// bun run test:workload — a seeded random workload over the whole API. Many agents (some under an
// owner's policy with an approval amount) use every feature: payments, messages, negotiations, lending
// (offer, borrow, repay, default), bets, contracts, subscriptions, marketplace bookings, webhooks, and
// their owners approve and decline what is held. Between single operations come parallel bursts that
// race on one resource, clock jumps across deadlines (some to just before one, which then passes in real
// time before any job runs), and reused Idempotency-Keys, also past their 24 h.
// Checked at every answer: never a 5xx (but 503 CHAIN_UNAVAILABLE: no chain here), every error is the
// contract's { error, message } with a status the operation allows, a replay within 24 h is identical,
// a key past its 24 h is never replayed, a resource read past its deadline shows what the deadline did,
// and no resource's state moves backwards. At quiet points (every WORKLOAD_QUIET operations and at the
// end): the ledger check is ok, agents' money per currency equals the deposits made (no chain, so no
// withdrawal leaves), no balance is negative, and each agent's held balance equals its open escrow (loan
// offers, collateral, stakes, contract escrow, outflows awaiting approval).
//   WORKLOAD_SEED (default random), WORKLOAD_OPS (default 1500), WORKLOAD_SECONDS (default 600: stops
//   earlier if reached), WORKLOAD_AGENTS (default 12), WORKLOAD_QUIET (default 100), TEST_DATABASE_URL
// The seed decides every choice: WORKLOAD_SEED=<seed> runs the same operations again (the timing of
// the server differs, so a race may fall the other way). A failure prints the seed, the operation's
// number and name, and the requests it made.
import type { Reply } from "../helpers/server";
import { expectLedger, startTarget } from "./target";

const SEED = Number(process.env.WORKLOAD_SEED ?? Math.floor(Math.random() * 2 ** 31));
const OPS = Number(process.env.WORKLOAD_OPS ?? 1500);
const SECONDS = Number(process.env.WORKLOAD_SECONDS ?? 600);
const AGENTS = Number(process.env.WORKLOAD_AGENTS ?? 12);
const QUIET_EVERY = Number(process.env.WORKLOAD_QUIET ?? 100);
const ENGINE = process.env.TEST_DATABASE_URL ? "postgres" : "sqlite";

const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const KEY_TTL_MS = DAY_MS;
/** A replay this close to its key's 24 h end is not judged: the client knows the server's time only this well. */
const MARGIN_MS = 60_000;
/** Deadline edges: the clock is moved to this long before the deadline, which then passes in real time. */
const EDGE_LEAD_MS = 250;
/** The share of mutations sent with an Idempotency-Key. */
const KEYED_SHARE = 0.4;

// ---- seeded choices -------------------------------------------------------------------------------

function mulberry32(state: number): () => number {
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);
const chance = (p: number) => random() < p;
const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
/** One of `items`, or undefined when there is none. */
const pick = <T>(items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)]);
const money = (min: number, max: number) => Math.round((min + random() * (max - min)) * 100) / 100;
const micro = (amount: number) => Math.round(amount * 1e6);

// ---- the server, and a webhook receiver on this machine ---------------------------------------------

let deliveriesReceived = 0;
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    await request.text();
    deliveriesReceived += 1;
    // Every fifth delivery fails, so that resending has something to send.
    return new Response(null, { status: deliveriesReceived % 5 === 0 ? 500 : 204 });
  },
});
const server = await startTarget({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", NEGOTIATION_APPROVAL_THRESHOLD: "50" });

/** The routes whose OpenAPI operation lists IDEMPOTENCY_KEY_REUSED: the ones that honour Idempotency-Key. */
const KEYED_ROUTES: RegExp[] = [];
for (const [path, methods] of Object.entries((await server.request("GET", "/swagger/json")).body.paths as Record<string, Record<string, unknown>>)) {
  for (const [method, operation] of Object.entries(methods)) {
    if (JSON.stringify(operation).includes("IDEMPOTENCY_KEY_REUSED")) KEYED_ROUTES.push(new RegExp(`^${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "[^/]+")}$`));
  }
}
const honoursKey = (method: string, path: string) => KEYED_ROUTES.some((route) => route.test(`${method} ${path}`));

// ---- failures: the seed, the operation and its requests ---------------------------------------------

let opNumber = 0;
let opName = "setup";
let trail: string[] = [];
let failures = 0;
const MAX_FAILURES = 25;

function fail(message: string): void {
  failures += 1;
  if (failures > 10) return;
  console.error(`FAIL (WORKLOAD_SEED=${SEED}, ${ENGINE}, op #${opNumber} ${opName}): ${message}`);
  for (const line of trail.slice(-12)) console.error(`    ${line}`);
}

type Who = { key: string; label: string };
const ADMIN: Who = { key: server.adminKey, label: "operator" };
const statuses = new Map<string, number>();

async function call(who: Who, method: string, path: string, body?: unknown, key?: string): Promise<Reply> {
  const headers: Record<string, string> = key ? { "idempotency-key": key } : {};
  let reply: Reply;
  try {
    reply = await server.request(method, path, { key: who.key, body, headers });
  } catch (error) {
    trail.push(`${who.label} ${method} ${path} → ${String(error)}`);
    fail(`${method} ${path}: no answer (${String(error)})`);
    return { status: 0, body: null, headers: new Headers() };
  }
  const replayed = reply.headers.get("idempotent-replayed") === "true" ? " (replayed)" : "";
  trail.push(`${who.label} ${method} ${path}${key ? ` [${key}]` : ""}${body === undefined ? "" : ` ${JSON.stringify(body)}`} → ${reply.status}${replayed} ${JSON.stringify(reply.body)?.slice(0, 400)}`);
  const outcome = outcomeOf(reply);
  statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
  if (reply.status >= 500 && outcome !== "503 CHAIN_UNAVAILABLE") fail(`${method} ${path} answered ${reply.status}`);
  else if (reply.status >= 400 && (typeof reply.body?.error !== "string" || typeof reply.body?.message !== "string")) fail(`${method} ${path}: the error body is not { error, message }`);
  return reply;
}

/** "201", or "409 INVALID_STATE" for an error. */
const outcomeOf = (reply: Reply) => (reply.status >= 400 ? `${reply.status} ${reply.body?.error}` : String(reply.status));

/** Fails unless the answer is one `allowed` lists ("201", "409 INVALID_STATE"). */
function expectOutcome(reply: Reply, allowed: readonly string[]): boolean {
  if (reply.status === 0 || allowed.includes(outcomeOf(reply))) return reply.status >= 200 && reply.status < 300;
  if (reply.status < 500) fail(`answered ${outcomeOf(reply)}; expected one of ${allowed.join(", ")}`);
  return false;
}

const REFUSED = ["400 INSUFFICIENT_BALANCE", "403 TIER_LIMIT_EXCEEDED", "403 POLICY_LIMIT_EXCEEDED", "403 COUNTERPARTY_NOT_ALLOWED", "403 FORBIDDEN"];
/** An outflow: made, held for the owner, or refused by funds, tier, policy or a block. */
const OUTFLOW = ["201", "202", ...REFUSED];

// ---- the server's clock, as this client knows it ----------------------------------------------------

let skewMs = 0;
const serverNow = () => Date.now() + skewMs;

async function advance(seconds: number): Promise<void> {
  const reply = await call(ADMIN, "POST", "/admin/clock/advance", { seconds });
  if (expectOutcome(reply, ["200"])) skewMs = Date.parse(reply.body.now) - Date.now();
}

/** Moves the clock to EDGE_LEAD_MS before `atMs` (jobs run then), then lets `atMs` pass in real time, before any job. */
async function jumpToJustAfter(atMs: number): Promise<void> {
  await advance(Math.max(0, atMs - EDGE_LEAD_MS - serverNow()) / SECOND_MS);
  await Bun.sleep(EDGE_LEAD_MS + 100);
}

// ---- what the workload knows: agents and the resources it saw ---------------------------------------

type Actor = { n: number; id: string; apiKey: string; ownerKey: string; policy: boolean; webhook: boolean };
const agents: Actor[] = [];
const byId = new Map<string, Actor>();
const asAgent = (actor: Actor): Who => ({ key: actor.apiKey, label: `agent${actor.n}` });
const asOwner = (actor: Actor): Who => ({ key: actor.ownerKey, label: `owner${actor.n}` });
const other = (actor: Actor) => pick(agents.filter((candidate) => candidate !== actor))!;

/** Money that came in, per currency, in micro units: what agents must hold between them. */
const deposited = new Map<string, number>();
const blocks = new Set<string>(); // "blocker>blocked"

type Kind = "bet" | "offer" | "loan" | "contract" | "negotiation" | "subscription" | "approval" | "service" | "quote";
type View = Record<string, any>;
const seen = new Map<string, View>(); // `${kind}:${id}` → the latest view

/** Each state may only move to the ones listed (transitively); unlisted states are final. */
const NEXT: Partial<Record<Kind, Record<string, string[]>>> = {
  bet: { OPEN: ["MATCHED", "EXPIRED"], MATCHED: ["SETTLED", "VOID", "DISPUTED"], DISPUTED: ["SETTLED", "VOID"] },
  // CLOSED: gone from the list of open offers, not yet known which way.
  offer: { OPEN: ["CLOSED", "TAKEN", "EXPIRED", "CANCELLED"], CLOSED: ["TAKEN", "EXPIRED", "CANCELLED"] },
  loan: { ACTIVE: ["REPAID", "DEFAULTED"] },
  contract: { PENDING_SIGNATURE: ["ACTIVE", "EXPIRED", "CANCELLED"], ACTIVE: ["FULFILLED", "BREACHED"] },
  negotiation: { OPEN: ["AWAITING_HUMAN_APPROVAL", "ACCEPTED", "REJECTED", "EXPIRED"], AWAITING_HUMAN_APPROVAL: ["ACCEPTED", "REJECTED"] },
  subscription: { ACTIVE: ["PAST_DUE", "CANCELLED"], PAST_DUE: ["ACTIVE", "CANCELLED"] },
  approval: { PENDING: ["APPROVED", "DECLINED", "EXPIRED", "FAILED"] },
};
/** Counters that never go down. */
const GROWING: Partial<Record<Kind, string[]>> = { loan: ["amountRepaid"], subscription: ["periodsCharged"] };

function reachable(kind: Kind, from: string, to: string): boolean {
  const graph = NEXT[kind];
  if (!graph || from === to) return true;
  const queue = [from];
  const visited = new Set(queue);
  while (queue.length > 0) {
    for (const next of graph[queue.shift()!] ?? []) {
      if (next === to) return true;
      if (!visited.has(next)) visited.add(next), queue.push(next);
    }
  }
  return false;
}

/** Keeps the latest view of a resource; fails if its state moved backwards since the last one seen. */
function observe(kind: Kind, view: View): void {
  const before = seen.get(`${kind}:${view.id}`);
  if (before) {
    if (before.status !== undefined && !reachable(kind, before.status, view.status)) fail(`${kind} ${view.id} went from ${before.status} back to ${view.status}`);
    for (const field of GROWING[kind] ?? []) if (view[field] < before[field]) fail(`${kind} ${view.id}: ${field} went down from ${before[field]} to ${view[field]}`);
  }
  seen.set(`${kind}:${view.id}`, view);
}

const all = (kind: Kind, where: (view: View) => boolean = () => true): View[] => {
  const out: View[] = [];
  for (const [key, view] of seen) if (key.startsWith(`${kind}:`) && where(view)) out.push(view);
  return out;
};

/** The 202 of an outflow held for the owner: an approval to decide. */
function held(actor: Actor, body: View): void {
  if (body?.status !== "AWAITING_APPROVAL") return fail(`a 202 that is not AWAITING_APPROVAL: ${JSON.stringify(body)}`);
  observe("approval", { id: body.approvalId, agentId: actor.id, kind: body.kind, status: "PENDING", amount: body.amount, currency: body.currency, expiresAt: body.expiresAt });
}

// ---- mutations with and without Idempotency-Key, and their replays ----------------------------------

type Learn = (view: View) => void;
type Keyed = { actor: Actor; method: string; path: string; body: unknown; key: string; allowed: readonly string[]; learn: Learn; status: number; answer: unknown; sentAt: number; answeredAt: number };
const keyed: Keyed[] = [];
let keyCount = 0;

/** What a fresh (not replayed) success says: the resource it returns, or an outflow held. */
function accepted(actor: Actor, reply: Reply, learn: Learn): void {
  if (reply.status === 202) held(actor, reply.body);
  else learn(reply.body);
}

/**
 * A POST (or DELETE) of `actor`; KEYED_SHARE of those to a route that honours Idempotency-Key carry
 * one, kept for replays when it succeeds.
 */
async function mutate(actor: Actor, method: string, path: string, body: unknown, allowed: readonly string[], learn: Learn = () => {}): Promise<Reply> {
  const key = honoursKey(method, path) && chance(KEYED_SHARE) ? `wk-${SEED}-${++keyCount}` : undefined;
  const sentAt = serverNow();
  const reply = await call(asAgent(actor), method, path, body, key);
  if (reply.headers.get("idempotent-replayed")) fail("a first request was answered as a replay");
  if (!expectOutcome(reply, allowed)) return reply;
  accepted(actor, reply, learn);
  if (key) keyed.push({ actor, method, path, body, key, allowed, learn, status: reply.status, answer: reply.body, sentAt, answeredAt: serverNow() });
  return reply;
}

/** Live: within its 24 h for sure; expired: past them for sure; between: not judged. */
const keyState = (record: Keyed) =>
  serverNow() < record.sentAt + KEY_TTL_MS - MARGIN_MS ? "live" : serverNow() > record.answeredAt + KEY_TTL_MS + MARGIN_MS ? "expired" : "edge";

/** The same request again: identical while the key lives, a new request once it expired. */
async function replay(record: Keyed): Promise<void> {
  const state = keyState(record);
  if (state === "edge") return;
  const sentAt = serverNow();
  const reply = await call(asAgent(record.actor), record.method, record.path, record.body, record.key);
  const replayed = reply.headers.get("idempotent-replayed") === "true";
  if (state === "live") {
    if (reply.status !== record.status || !replayed || !Bun.deepEquals(reply.body, record.answer)) {
      fail(`a replay within 24 h answered ${reply.status}${replayed ? " (replayed)" : ""} ${JSON.stringify(reply.body)?.slice(0, 300)}, first ${record.status} ${JSON.stringify(record.answer)?.slice(0, 300)}`);
    }
    return;
  }
  await rerun(record, reply, sentAt);
}

/**
 * A key past its 24 h: the request ran again (never replayed), and its answer is the one kept now. It
 * is a new request in a world that moved on: a repayment may now be more than is outstanding.
 */
async function rerun(record: Keyed, reply: Reply, sentAt: number): Promise<void> {
  if (reply.headers.get("idempotent-replayed")) return fail(`the key ${record.key}, past its 24 h, was replayed`);
  if (!expectOutcome(reply, [...record.allowed, "400 VALIDATION_ERROR"])) {
    keyed.splice(keyed.indexOf(record), 1);
    return;
  }
  accepted(record.actor, reply, record.learn);
  Object.assign(record, { status: reply.status, answer: reply.body, sentAt, answeredAt: serverNow() });
}

/** Another body with a live key: 409 IDEMPOTENCY_KEY_REUSED, nothing done. */
async function reuseWithOtherBody(record: Keyed): Promise<void> {
  const body = record.body as View | undefined;
  if (keyState(record) !== "live" || !body) return;
  const changed = typeof body.amount === "number" ? { ...body, amount: body.amount + 0.01 } : typeof body.subject === "string" ? { ...body, subject: `${body.subject}!` } : null;
  if (!changed) return;
  expectOutcome(await call(asAgent(record.actor), record.method, record.path, changed, record.key), ["409 IDEMPOTENCY_KEY_REUSED"]);
}

// ---- reading resources as one of their parties -----------------------------------------------------

const PATHS: Partial<Record<Kind, (id: string) => string>> = {
  bet: (id) => `/betting/${id}`,
  loan: (id) => `/lending/loans/${id}`,
  contract: (id) => `/contracts/${id}`,
  negotiation: (id) => `/negotiations/${id}`,
  subscription: (id) => `/subscriptions/${id}`,
  approval: (id) => `/approvals/${id}`,
};
const partyOf = (kind: Kind, view: View): Actor =>
  byId.get(
    {
      bet: view.creatorId,
      loan: view.borrowerId,
      contract: view.creatorId,
      negotiation: view.initiatorId,
      subscription: view.payerId,
      approval: view.agentId,
      offer: view.lenderId,
      service: view.providerId,
      quote: view.agentId,
    }[kind],
  )!;

/** GET the resource as one of its parties; its view (observed), or null. */
async function refresh(kind: Kind, id: string): Promise<View | null> {
  const view = seen.get(`${kind}:${id}`);
  const path = PATHS[kind];
  if (!view || !path) return null;
  const reply = await call(asAgent(partyOf(kind, view)), "GET", path(id));
  if (!expectOutcome(reply, ["200"])) return null;
  observe(kind, reply.body);
  return reply.body;
}

/** Every item of a list (pages of 100). */
async function everything(who: Who, path: string): Promise<View[]> {
  const items: View[] = [];
  for (let offset = 0; ; offset += 100) {
    const reply = await call(who, "GET", `${path}${path.includes("?") ? "&" : "?"}limit=100&offset=${offset}`);
    if (!expectOutcome(reply, ["200"])) return items;
    items.push(...reply.body.data);
    if (!reply.body.pagination.hasMore) return items;
  }
}

// ---- operations: one feature each --------------------------------------------------------------------

const learnAs = (kind: Kind): Learn => (view) => observe(kind, view);
const currency = () => (chance(0.15) ? "EUR" : "USDC");

async function pay(): Promise<void> {
  const from = pick(agents)!;
  const to = other(from);
  const amount = chance(0.05) ? money(95, 130) : money(0.5, 45);
  const body: View = { toAgentId: to.id, amount, currency: currency() };
  if (chance(0.3)) Object.assign(body, { reason: "work", metadata: { op: opNumber } });
  const reply = await mutate(from, "POST", "/payments/send", body, OUTFLOW);
  if (reply.status === 201 && (reply.body.amount !== amount || reply.body.fromAgentId !== from.id)) fail("the payment is not the one asked for");
}

async function message(): Promise<void> {
  const actor = pick(agents)!;
  if (chance(0.6)) {
    await mutate(actor, "POST", "/messages", { recipientId: other(actor).id, subject: `op ${opNumber}`, body: "hello" }, ["201", "429 PAIR_LIMIT_EXCEEDED", "403 FORBIDDEN"]);
    return;
  }
  const inbox = await call(asAgent(actor), "GET", "/messages/inbox?limit=20");
  if (!expectOutcome(inbox, ["200"])) return;
  const unread = pick((inbox.body.data as View[]).filter((item) => !item.read));
  if (unread) expectOutcome(await call(asAgent(actor), "POST", `/messages/${unread.id}/read`), ["200"]);
  else expectOutcome(await call(asAgent(actor), "GET", "/messages/unread-count"), ["200"]);
}

async function negotiate(): Promise<void> {
  const open = pick(all("negotiation", (view) => view.status === "OPEN"));
  const awaiting = pick(all("negotiation", (view) => view.status === "AWAITING_HUMAN_APPROVAL"));
  const learn = learnAs("negotiation");
  if (awaiting && chance(0.2)) {
    const owner = byId.get(pick([awaiting.initiatorId, awaiting.counterpartyId])!)!;
    const reply = await call(asOwner(owner), "POST", `/negotiations/${awaiting.id}/human-approve`);
    if (expectOutcome(reply, ["200", "409 INVALID_STATE"])) learn(reply.body);
    return;
  }
  if (open && chance(0.7)) {
    const turn = byId.get(open.offerBy === open.initiatorId ? open.counterpartyId : open.initiatorId)!;
    const roll = random();
    if (roll < 0.35) await mutate(turn, "POST", `/negotiations/${open.id}/counter`, { offer: { amount: money(10, 90), currency: "USDC" } }, ["200", "409 INVALID_STATE", "429 PAIR_LIMIT_EXCEEDED", "403 FORBIDDEN"], learn);
    else if (roll < 0.65) await mutate(turn, "POST", `/negotiations/${open.id}/accept`, undefined, ["200", "409 INVALID_STATE", "403 FORBIDDEN"], learn);
    else if (roll < 0.8) await mutate(byId.get(pick([open.initiatorId, open.counterpartyId])!)!, "POST", `/negotiations/${open.id}/reject`, undefined, ["200", "409 INVALID_STATE"], learn);
    else await refresh("negotiation", open.id);
    return;
  }
  const actor = pick(agents)!;
  const body = { counterpartyId: other(actor).id, subject: `deal ${opNumber}`, offer: { amount: money(10, 90), currency: "USDC", note: "first offer" }, expiresInHours: pick([1, 6, 24, 48])! };
  await mutate(actor, "POST", "/negotiations", body, ["201", "429 PAIR_LIMIT_EXCEEDED", "403 FORBIDDEN"], learn);
}

async function lend(): Promise<void> {
  const roll = random();
  const loan = pick(all("loan", (view) => view.status === "ACTIVE"));
  const offer = pick(all("offer", (view) => view.status === "OPEN"));
  if (roll < 0.3 && loan) {
    const amount = chance(0.5) ? loan.outstanding : Math.max(0.01, Math.floor(loan.outstanding * random() * 100) / 100);
    await mutate(byId.get(loan.borrowerId)!, "POST", `/lending/repay/${loan.id}`, { amount }, ["200", "400 INSUFFICIENT_BALANCE", "409 INVALID_STATE"], learnAs("loan"));
  } else if (roll < 0.6 && offer) {
    const borrower = other(byId.get(offer.lenderId)!);
    // The schema takes a collateral above 0 only: a borrower of a 0 % offer leaves it out.
    const body = offer.collateralRequired > 0 && chance(0.5) ? { offerId: offer.id, collateral: offer.collateralRequired } : { offerId: offer.id };
    const reply = await mutate(borrower, "POST", "/lending/borrow", body, ["200", "202", "409 INVALID_STATE", ...REFUSED], learnAs("loan"));
    if (reply.status === 200) await refreshOffers();
  } else if (roll < 0.7 && offer) {
    const reply = await mutate(byId.get(offer.lenderId)!, "DELETE", `/lending/offers/${offer.id}`, undefined, ["200", "409 INVALID_STATE"], learnAs("offer"));
    if (reply.status === 409) await refreshOffers();
  } else {
    const body = {
      amount: money(5, 60),
      currency: "USDC",
      interestRate: pick([0, 5, 12.5])!,
      durationDays: pick([1, 3, 7, 30])!,
      collateralPercent: pick([0, 50, 100, 150])!,
      expiresInHours: pick([1, 24, 168])!,
    };
    await mutate(pick(agents)!, "POST", "/lending/offers", body, OUTFLOW, learnAs("offer"));
  }
}

/** Loan offers have no GET by id: the list of open ones tells which are still OPEN. */
async function refreshOffers(): Promise<View[]> {
  const open = await everything(asAgent(agents[0]!), "/lending/offers");
  const ids = new Set(open.map((view) => view.id));
  for (const view of open) observe("offer", view);
  // Gone from the list: no longer OPEN (taken, cancelled or expired); which one, the next answer about it says.
  for (const view of all("offer", (item) => item.status === "OPEN" && !ids.has(item.id))) seen.set(`offer:${view.id}`, { ...view, status: "CLOSED" });
  return open;
}

async function bet(): Promise<void> {
  const roll = random();
  const open = pick(all("bet", (view) => view.status === "OPEN"));
  const matched = pick(all("bet", (view) => view.status === "MATCHED"));
  const disputed = pick(all("bet", (view) => view.status === "DISPUTED"));
  const learn = learnAs("bet");
  if (roll < 0.3 && open) {
    await mutate(other(byId.get(open.creatorId)!), "POST", `/betting/${open.id}/accept`, undefined, ["200", "202", "409 INVALID_STATE", ...REFUSED], learn);
  } else if (roll < 0.55 && matched) {
    const reporter = byId.get(matched.creatorOutcome === null ? matched.creatorId : matched.acceptorId)!;
    const earlier = matched.creatorOutcome ?? matched.acceptorOutcome;
    const outcome = earlier && chance(0.7) ? earlier : pick(["MET", "NOT_MET", "VOID"])!;
    await mutate(reporter, "POST", `/betting/${matched.id}/resolve`, { outcome }, ["200", "409 INVALID_STATE"], learn);
  } else if (roll < 0.62 && disputed) {
    const reply = await call(ADMIN, "POST", `/admin/bets/${disputed.id}/resolve`, { outcome: pick(["MET", "NOT_MET", "VOID"]) });
    if (expectOutcome(reply, ["200", "409 INVALID_STATE"])) learn(reply.body);
  } else {
    const body = { description: `bet ${opNumber}`, condition: "it rains tomorrow", amount: money(1, 30), currency: currency(), expiresInHours: pick([1, 6, 24, 72])! };
    await mutate(pick(agents)!, "POST", "/betting", body, OUTFLOW, learn);
  }
}

async function contract(): Promise<void> {
  const roll = random();
  const pending = pick(all("contract", (view) => view.status === "PENDING_SIGNATURE"));
  const active = pick(all("contract", (view) => view.status === "ACTIVE"));
  const learn = learnAs("contract");
  if (roll < 0.25 && pending) {
    await mutate(byId.get(pending.counterpartyId)!, "POST", `/contracts/${pending.id}/sign`, undefined, ["200", "409 INVALID_STATE", "403 FORBIDDEN"], learn);
  } else if (roll < 0.5 && active) {
    const condition = pick((active.conditions as View[]).filter((item) => !item.fulfilled));
    if (condition) await mutate(byId.get(active.creatorId)!, "POST", `/contracts/${active.id}/fulfill`, { conditionId: condition.id }, ["200", "409 INVALID_STATE"], learn);
  } else if (roll < 0.6 && pending) {
    await mutate(byId.get(pending.creatorId)!, "POST", `/contracts/${pending.id}/cancel`, undefined, ["200", "409 INVALID_STATE"], learn);
  } else {
    const creator = pick(agents)!;
    const conditions = Array.from({ length: int(1, 3) }, (_, index) => ({ id: `c${index + 1}`, type: "delivery", description: `part ${index + 1}`, params: { part: index + 1 } }));
    const body = { counterpartyId: other(creator).id, title: `contract ${opNumber}`, description: "work", escrowAmount: money(1, 40), currency: "USDC", conditions, deadlineDays: pick([1, 2, 7, 30])! };
    await mutate(creator, "POST", "/contracts", body, OUTFLOW, learn);
  }
}

async function subscribe(): Promise<void> {
  const live = pick(all("subscription", (view) => view.status !== "CANCELLED"));
  if (live && chance(0.3)) {
    const party = byId.get(pick([live.payerId, live.recipientId])!)!;
    await mutate(party, "DELETE", `/subscriptions/${live.id}`, undefined, ["200", "409 INVALID_STATE"], learnAs("subscription"));
  } else if (live && chance(0.4)) {
    await refresh("subscription", live.id);
  } else if (all("subscription", (view) => view.status !== "CANCELLED").length < 3 * AGENTS) {
    const payer = pick(agents)!;
    const body = { recipientId: other(payer).id, amount: money(0.1, 3), currency: "USDC", frequency: pick(["DAILY", "WEEKLY", "MONTHLY"])! };
    await mutate(payer, "POST", "/subscriptions", body, OUTFLOW, learnAs("subscription"));
  }
}

async function market(): Promise<void> {
  const roll = random();
  const service = pick(all("service", (view) => view.active));
  const quote = pick(all("quote", (view) => !view.booked));
  if (roll < 0.35 && quote) {
    const agent = byId.get(quote.agentId)!;
    const reply = await mutate(agent, "POST", "/bookings", { quoteId: quote.id }, [...OUTFLOW, "409 INVALID_STATE"]);
    if (reply.status === 201 || outcomeOf(reply) === "409 INVALID_STATE") seen.set(`quote:${quote.id}`, { ...quote, booked: true });
  } else if (roll < 0.7 && service) {
    const body = service.pricingUnit === "PER_HOUR" ? { serviceId: service.id, hours: int(1, 4) } : { serviceId: service.id };
    await mutate(other(byId.get(service.providerId)!), "POST", "/quotes", body, ["200", "409 INVALID_STATE", "403 FORBIDDEN"], learnAs("quote"));
  } else if (roll < 0.8 && service) {
    const change = chance(0.5) ? { price: money(1, 30) } : { active: false };
    const reply = await call(asAgent(byId.get(service.providerId)!), "PATCH", `/services/${service.id}`, change);
    if (expectOutcome(reply, ["200"])) observe("service", reply.body);
  } else if (roll < 0.85) {
    expectOutcome(await call(asAgent(pick(agents)!), "GET", "/services/discover?limit=20"), ["200"]);
  } else {
    const body = { name: `service ${opNumber}`, description: "useful", category: pick(["data", "compute", "travel"])!, price: money(1, 30), currency: "USDC", pricingUnit: pick(["FIXED", "PER_HOUR"])! };
    await mutate(pick(agents)!, "POST", "/services", body, ["201"], learnAs("service"));
  }
}

async function webhook(): Promise<void> {
  const actor = pick(agents)!;
  const roll = random();
  if (roll < 0.3) {
    const reply = await call(asAgent(actor), "PUT", "/agents/me/webhook", { webhookUrl: `http://127.0.0.1:${receiver.port}/agent${actor.n}` });
    if (expectOutcome(reply, ["200"])) actor.webhook = true;
  } else if (roll < 0.4) {
    const reply = await call(asAgent(actor), "PUT", "/agents/me/webhook", { webhookUrl: null });
    if (expectOutcome(reply, ["200"])) actor.webhook = false;
  } else if (roll < 0.5) {
    expectOutcome(await call(asAgent(actor), "POST", "/agents/me/webhook/secret"), actor.webhook ? ["200"] : ["200", "409 INVALID_STATE"]);
  } else {
    const deliveries = await call(asAgent(actor), "GET", "/agents/me/webhook/deliveries?limit=50");
    if (!expectOutcome(deliveries, ["200"])) return;
    const failed = pick((deliveries.body.data as View[]).filter((item) => item.outcome !== "DELIVERED"));
    if (failed && chance(0.5)) expectOutcome(await call(asAgent(actor), "POST", `/agents/me/webhook/deliveries/${failed.id}/resend`), ["202", "409 INVALID_STATE", "429 RATE_LIMIT_EXCEEDED"]);
  }
}

async function decide(): Promise<void> {
  const actor = pick(agents.filter((agent) => agent.policy))!;
  const list = await call(asOwner(actor), "GET", "/owner/approvals?status=PENDING&limit=50");
  if (!expectOutcome(list, ["200"])) return;
  const approval = pick(list.body.data as View[]);
  if (!approval) return;
  if (approval.kind !== "NEGOTIATION") {
    observe("approval", approval);
    if (chance(0.3)) await refresh("approval", approval.id);
  }
  const approving = chance(0.6);
  const body = approving && chance(0.5) ? { termsHash: approval.termsHash } : undefined;
  const reply = await call(asOwner(actor), "POST", `/owner/approvals/${approval.id}/${approving ? "approve" : "decline"}`, body);
  if (expectOutcome(reply, ["200", "409 INVALID_STATE"]) && approval.kind !== "NEGOTIATION") observe("approval", reply.body);
  if (approval.kind === "NEGOTIATION" && seen.has(`negotiation:${approval.id}`)) await refresh("negotiation", approval.id);
}

/** Owners' policies: an approval amount and caps, sometimes tightened or loosened. */
const policyFor = (actor: Actor) => ({
  perTransaction: { USDC: pick([80, 150])! },
  daily: { USDC: pick([400, 2000])! },
  allowlist: chance(0.15) ? [other(actor).id, other(actor).id].filter((id, index, ids) => ids.indexOf(id) === index) : null,
  approvalAbove: { USDC: pick([15, 25, 40])! },
});

async function policy(): Promise<void> {
  const actor = pick(agents.filter((agent) => agent.policy))!;
  if (chance(0.5)) expectOutcome(await call(asOwner(actor), "GET", "/owner/policy"), ["200"]);
  else expectOutcome(await call(asOwner(actor), "PUT", "/owner/policy", policyFor(actor)), ["200"]);
}

async function block(): Promise<void> {
  const existing = pick([...blocks]);
  if (existing && (blocks.size >= 2 || chance(0.5))) {
    const [blocker, blocked] = existing.split(">") as [string, string];
    if (expectOutcome(await call(asAgent(byId.get(blocker)!), "DELETE", `/agents/me/block/${blocked}`), ["200"])) blocks.delete(existing);
    return;
  }
  const blocker = pick(agents)!;
  const blocked = other(blocker);
  if (expectOutcome(await call(asAgent(blocker), "POST", "/agents/me/block", { agentId: blocked.id, reason: "workload" }), ["200"])) blocks.add(`${blocker.id}>${blocked.id}`);
}

async function deposit(): Promise<void> {
  const agent = pick(agents)!;
  const amount = money(10, 200);
  const code = chance(0.2) ? "EUR" : "USDC";
  const reply = await call(ADMIN, "POST", "/admin/deposits", { agentId: agent.id, amount, currency: code, reference: `op ${opNumber}` });
  if (expectOutcome(reply, ["201"])) deposited.set(code, (deposited.get(code) ?? 0) + micro(amount));
}

/** No chain here: a withdrawal is refused before anything moves. */
async function withdraw(): Promise<void> {
  await mutate(pick(agents)!, "POST", "/wallets/withdraw", { toAddress: `0x${"11".repeat(20)}`, amount: 1 }, ["503 CHAIN_UNAVAILABLE"]);
}

async function readSomething(): Promise<void> {
  const actor = pick(agents)!;
  const kind = pick(["bet", "loan", "contract", "negotiation", "subscription", "approval"] as const)!;
  const view = pick(all(kind, (item) => PATHS[kind] !== undefined && (kind !== "approval" || item.kind !== "NEGOTIATION")));
  if (view && chance(0.5)) {
    await refresh(kind, view.id);
    return;
  }
  const path = pick([
    "/wallets/balance", "/wallets/history?limit=20", `/agents/${other(actor).id}/reputation`, "/payments/my-limits", "/betting/open", "/lending/offers",
    "/negotiations/mine", "/contracts/mine", "/subscriptions/mine", "/bookings/mine", "/messages/inbox", "/agents/me", "/betting/my-bets", "/lending/my-loans",
  ])!;
  expectOutcome(await call(asAgent(actor), "GET", path), ["200"]);
}

// ---- time ------------------------------------------------------------------------------------------

/** Mostly short steps; sometimes across the hours and days every deadline is counted in. */
async function jump(): Promise<void> {
  const seconds = pick([30, 300, 300, 960, 3600, 3600, 6 * 3600, 25 * 3600, 3 * 86400, 8 * 86400, chance(0.3) ? 32 * 86400 : 86400])!;
  await advance(seconds);
}

/** A resource's deadline passes in real time after the clock is moved to just before it: read then, it shows what the deadline did. */
async function deadlineEdge(): Promise<void> {
  const now = serverNow();
  const ahead = (iso: string | null | undefined) => typeof iso === "string" && Date.parse(iso) > now + 2 * SECOND_MS && Date.parse(iso) < now + 40 * DAY_MS;
  const candidates: { kind: Kind; view: View; at: string; passed: (view: View) => boolean }[] = [
    ...all("approval", (view) => view.status === "PENDING" && ahead(view.expiresAt)).map((view) => ({ kind: "approval" as const, view, at: view.expiresAt, passed: (next: View) => next.status !== "PENDING" })),
    ...all("bet", (view) => view.status === "OPEN" && ahead(view.expiresAt)).map((view) => ({ kind: "bet" as const, view, at: view.expiresAt, passed: (next: View) => next.status !== "OPEN" })),
    ...all("loan", (view) => view.status === "ACTIVE" && ahead(view.dueAt)).map((view) => ({ kind: "loan" as const, view, at: view.dueAt, passed: (next: View) => next.status !== "ACTIVE" })),
    ...all("contract", (view) => ["PENDING_SIGNATURE", "ACTIVE"].includes(view.status) && ahead(view.deadlineAt)).map((view) => ({ kind: "contract" as const, view, at: view.deadlineAt, passed: (next: View) => !["PENDING_SIGNATURE", "ACTIVE"].includes(next.status) })),
    ...all("negotiation", (view) => view.status === "OPEN" && ahead(view.expiresAt)).map((view) => ({ kind: "negotiation" as const, view, at: view.expiresAt, passed: (next: View) => next.status !== "OPEN" })),
    ...all("subscription", (view) => view.status === "ACTIVE" && ahead(view.nextChargeAt)).map((view) => ({
      kind: "subscription" as const, view, at: view.nextChargeAt, passed: (next: View) => next.status !== "ACTIVE" || next.periodsCharged > view.periodsCharged,
    })),
  ];
  const offer = pick(all("offer", (view) => view.status === "OPEN" && ahead(view.expiresAt)));
  if (offer && chance(0.15)) {
    await jumpToJustAfter(Date.parse(offer.expiresAt));
    if ((await refreshOffers()).some((view) => view.id === offer.id)) fail(`loan offer ${offer.id} is still listed OPEN after its expiry ${offer.expiresAt}`);
    return;
  }
  const edge = pick(candidates);
  if (!edge) return jump();
  await jumpToJustAfter(Date.parse(edge.at));
  const after = await refresh(edge.kind, edge.view.id);
  if (after && !edge.passed(after)) fail(`${edge.kind} ${edge.view.id} read after its deadline ${edge.at} still shows ${after.status} (server time ${new Date(serverNow()).toISOString()})`);
}

/** A key reused just after its 24 h, before the purge job: a new request, never a replay, never a 500. */
async function keyExpiry(): Promise<void> {
  const record = pick(keyed.filter((item) => item.answeredAt + KEY_TTL_MS > serverNow() + 2 * SECOND_MS));
  if (!record) return;
  await jumpToJustAfter(record.answeredAt + KEY_TTL_MS);
  const sentAt = serverNow();
  await rerun(record, await call(asAgent(record.actor), record.method, record.path, record.body, record.key), sentAt);
}

async function replayOne(): Promise<void> {
  const record = chance(0.7) ? pick(keyed.slice(-50)) : pick(keyed);
  if (!record) return;
  if (chance(0.2)) await reuseWithOtherBody(record);
  else await replay(record);
}

// ---- parallel bursts: races on one resource ---------------------------------------------------------

const at2xx = (replies: Reply[], status = 200) => replies.filter((reply) => reply.status === status).length;

/** Several callers act on one resource at once; the resource is read again afterwards. */
async function burst(): Promise<void> {
  const open = pick(all("bet", (view) => view.status === "OPEN"));
  const offer = pick(all("offer", (view) => view.status === "OPEN"));
  const loan = pick(all("loan", (view) => view.status === "ACTIVE"));
  const pending = pick(all("contract", (view) => view.status === "PENDING_SIGNATURE"));
  const negotiation = pick(all("negotiation", (view) => view.status === "OPEN"));
  const quote = pick(all("quote", (view) => !view.booked && Date.parse(view.expiresAt) > serverNow() + 5 * SECOND_MS));
  const approval = pick(all("approval", (view) => view.status === "PENDING" && view.kind !== "NEGOTIATION"));
  const subscription = pick(all("subscription", (view) => view.status !== "CANCELLED"));
  const kinds = [
    "same-key", "spend",
    ...(open ? ["accept"] : []), ...(offer ? ["borrow"] : []), ...(loan ? ["repay"] : []), ...(pending ? ["sign-cancel"] : []),
    ...(negotiation ? ["accept-reject"] : []), ...(quote ? ["book"] : []), ...(approval ? ["decide"] : []), ...(subscription ? ["cancel"] : []),
  ];
  const kind = pick(kinds)!;
  opName = `burst ${kind}`;
  const n = int(2, 5);
  const many = <T>(make: (index: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, index) => make(index)));

  if (kind === "same-key") {
    // One request sent n times at once with one new key: one runs, the others replay its answer.
    const from = pick(agents)!;
    const key = `wk-${SEED}-${++keyCount}`;
    const body = { toAgentId: other(from).id, amount: money(0.5, 30), currency: "USDC" };
    const sentAt = serverNow();
    const replies = await many(() => call(asAgent(from), "POST", "/payments/send", body, key));
    for (const reply of replies) expectOutcome(reply, OUTFLOW);
    const done = replies.filter((reply) => reply.status === 201 || reply.status === 202);
    if (done.some((reply) => !Bun.deepEquals(reply.body, done[0]!.body))) fail("one key, different answers");
    if (done.filter((reply) => !reply.headers.get("idempotent-replayed")).length > 1) fail("one key ran more than once");
    const first = done.find((reply) => !reply.headers.get("idempotent-replayed"));
    if (first) {
      accepted(from, first, () => {});
      keyed.push({ actor: from, method: "POST", path: "/payments/send", body, key, allowed: OUTFLOW, learn: () => {}, status: first.status, answer: first.body, sentAt, answeredAt: serverNow() });
    }
  } else if (kind === "spend") {
    // One payer pays several payees at once, more than it has: never below zero (checked by the ledger).
    const from = pick(agents)!;
    const { available } = await server.balance(from, "USDC");
    const amount = Math.max(0.01, Math.min(95, Math.floor((available / 2) * 100) / 100));
    const replies = await many(() => call(asAgent(from), "POST", "/payments/send", { toAgentId: other(from).id, amount, currency: "USDC" }));
    for (const reply of replies) if (expectOutcome(reply, OUTFLOW)) accepted(from, reply, () => {});
    const after = await server.balance(from, "USDC");
    if (after.available < 0 || after.held < 0) fail(`negative balance after a burst: ${JSON.stringify(after)}`);
  } else if (kind === "accept") {
    const acceptors = agents.filter((agent) => agent.id !== open!.creatorId).slice(0, n);
    const replies = await Promise.all(acceptors.map((agent) => call(asAgent(agent), "POST", `/betting/${open!.id}/accept`)));
    replies.forEach((reply, index) => expectOutcome(reply, ["200", "202", "409 INVALID_STATE", ...REFUSED]) && reply.status === 202 && held(acceptors[index]!, reply.body));
    if (at2xx(replies) > 1) fail(`${at2xx(replies)} agents accepted one bet`);
    await refresh("bet", open!.id);
  } else if (kind === "borrow") {
    const borrowers = agents.filter((agent) => agent.id !== offer!.lenderId).slice(0, n);
    const replies = await Promise.all(borrowers.map((agent) => call(asAgent(agent), "POST", "/lending/borrow", { offerId: offer!.id })));
    replies.forEach((reply, index) => {
      if (!expectOutcome(reply, ["200", "202", "409 INVALID_STATE", ...REFUSED])) return;
      if (reply.status === 202) held(borrowers[index]!, reply.body);
      else observe("loan", reply.body);
    });
    if (at2xx(replies) > 1) fail(`${at2xx(replies)} agents borrowed one offer`);
    await refreshOffers();
  } else if (kind === "repay") {
    // Each repays more than half of what is outstanding: at most one can be taken in full.
    const borrower = byId.get(loan!.borrowerId)!;
    const amount = Math.max(0.01, Math.ceil((loan!.outstanding / 2) * 100) / 100 + 0.01);
    const replies = await many(() => call(asAgent(borrower), "POST", `/lending/repay/${loan!.id}`, { amount }));
    for (const reply of replies) expectOutcome(reply, ["200", "400 INSUFFICIENT_BALANCE", "400 VALIDATION_ERROR", "409 INVALID_STATE"]);
    const after = await refresh("loan", loan!.id);
    const repaid = at2xx(replies) * micro(amount);
    if (after && after.status !== "DEFAULTED" && micro(after.amountRepaid) - micro(loan!.amountRepaid) !== repaid) {
      fail(`repaid ${after.amountRepaid} after ${at2xx(replies)} repayments of ${amount} on ${loan!.amountRepaid}`);
    }
    if (after && after.amountRepaid > after.amountDue) fail(`loan repaid ${after.amountRepaid} of ${after.amountDue}`);
  } else if (kind === "sign-cancel") {
    const replies = await Promise.all([
      call(asAgent(byId.get(pending!.counterpartyId)!), "POST", `/contracts/${pending!.id}/sign`),
      call(asAgent(byId.get(pending!.creatorId)!), "POST", `/contracts/${pending!.id}/cancel`),
    ]);
    for (const reply of replies) expectOutcome(reply, ["200", "409 INVALID_STATE", "403 FORBIDDEN"]);
    if (at2xx(replies) > 1) fail("a contract was both signed and cancelled");
    await refresh("contract", pending!.id);
  } else if (kind === "accept-reject") {
    const turn = byId.get(negotiation!.offerBy === negotiation!.initiatorId ? negotiation!.counterpartyId : negotiation!.initiatorId)!;
    const replies = await Promise.all([
      call(asAgent(turn), "POST", `/negotiations/${negotiation!.id}/accept`),
      call(asAgent(byId.get(negotiation!.offerBy)!), "POST", `/negotiations/${negotiation!.id}/reject`),
    ]);
    for (const reply of replies) expectOutcome(reply, ["200", "409 INVALID_STATE", "403 FORBIDDEN"]);
    // Accepting above the approval threshold only asks the owners (AWAITING_HUMAN_APPROVAL), which a rejection may still end.
    if (replies[0]!.body?.status === "ACCEPTED" && replies[1]!.status === 200) fail("a negotiation was both accepted and rejected");
    await refresh("negotiation", negotiation!.id);
  } else if (kind === "book") {
    const agent = byId.get(quote!.agentId)!;
    const replies = await many(() => call(asAgent(agent), "POST", "/bookings", { quoteId: quote!.id }));
    replies.forEach((reply) => expectOutcome(reply, [...OUTFLOW, "409 INVALID_STATE"]) && reply.status === 202 && held(agent, reply.body));
    if (at2xx(replies, 201) > 1) fail(`one quote booked ${at2xx(replies, 201)} times`);
    seen.set(`quote:${quote!.id}`, { ...quote!, booked: true });
  } else if (kind === "decide") {
    const owner = asOwner(byId.get(approval!.agentId)!);
    const action = (index: number) => (index % 2 === 0 ? "approve" : "decline");
    const replies = await many((index) => call(owner, "POST", `/owner/approvals/${approval!.id}/${action(index)}`));
    let decided = 0;
    replies.forEach((reply, index) => {
      if (!expectOutcome(reply, ["200", "409 INVALID_STATE"])) return;
      const made = action(index) === "approve" ? ["APPROVED", "FAILED"] : ["DECLINED"];
      if (made.includes(reply.body.status)) decided += 1;
      else fail(`${action(index)} answered 200 with the approval ${reply.body.status}: decided by another call, it should be 409`);
    });
    if (decided > 1) fail(`one approval decided ${decided} times`);
    await refresh("approval", approval!.id);
  } else if (kind === "cancel") {
    const replies = await Promise.all(
      [subscription!.payerId, subscription!.recipientId].map((id) => call(asAgent(byId.get(id)!), "DELETE", `/subscriptions/${subscription!.id}`)),
    );
    for (const reply of replies) expectOutcome(reply, ["200", "409 INVALID_STATE"]);
    if (at2xx(replies) > 1) fail("a subscription was cancelled twice");
    await refresh("subscription", subscription!.id);
  }
}

// ---- quiet points: money and state over the whole service ------------------------------------------

/** Each agent's held balance is the escrow of what is open: offers, collateral, stakes, contracts, held outflows. */
async function quietPoint(final: boolean): Promise<void> {
  opName = final ? "final check" : "quiet point";
  await advance(0); // runs every job due now: nothing is left for a tick to change during the reads
  for (let attempt = 1; attempt <= 2; attempt++) {
    const problems = await escrowProblems();
    if (problems.length === 0) break;
    if (attempt === 2) for (const problem of problems) fail(problem);
    else await advance(0);
  }
  if (!(await expectLedger(server))) fail("the ledger check failed");
  const totals = new Map(((await server.ledgerCheck()).totals as View[]).map((total) => [total.currency as string, micro(total.netInflow)]));
  for (const code of new Set([...totals.keys(), ...deposited.keys()])) {
    if ((totals.get(code) ?? 0) !== (deposited.get(code) ?? 0)) fail(`${code}: ${(totals.get(code) ?? 0) / 1e6} came in, ${(deposited.get(code) ?? 0) / 1e6} was deposited`);
  }
  // A sample of live keys: each replay is identical.
  for (const record of keyed.slice(-10)) await replay(record);
  await pagingProblems();
}

/**
 * Lists walked in small pages by `after` (each page's nextAfter) and by offset give the items of one
 * large page, in its order, once each; `total` counts them. Nothing moves at a quiet point.
 */
async function pagingProblems(): Promise<void> {
  const agent = pick(agents)!;
  const size = int(3, 12);
  for (const [who, path] of [[asAgent(agent), "/wallets/history"], [asAgent(agent), "/betting/my-bets"], [asAgent(agent), "/messages/inbox"], [asOwner(agent), "/owner/approvals"]] as const) {
    const whole = (await everything(who, path)).map((item) => item.id);
    const byAfter: string[] = [];
    const byOffset: string[] = [];
    for (let after: string | null = null, offset = 0; ; offset += size) {
      const cursor = await call(who, "GET", `${path}?limit=${size}${after ? `&after=${encodeURIComponent(after)}` : ""}`);
      const window = await call(who, "GET", `${path}?limit=${size}&offset=${offset}`);
      if (!expectOutcome(cursor, ["200"]) || !expectOutcome(window, ["200"])) return;
      if (cursor.body.pagination.total !== whole.length) return fail(`${path}: total ${cursor.body.pagination.total}, ${whole.length} items listed`);
      byAfter.push(...cursor.body.data.map((item: View) => item.id));
      byOffset.push(...window.body.data.map((item: View) => item.id));
      if (!cursor.body.pagination.hasMore || byAfter.length > whole.length) break;
      after = cursor.body.pagination.nextAfter;
    }
    for (const [how, ids] of [["after", byAfter], ["offset", byOffset]] as const) {
      if (!Bun.deepEquals(ids, whole)) fail(`${path} in pages of ${size} by ${how}: ${ids.length} items, ${whole.length} in one page (first difference at ${ids.findIndex((id, index) => id !== whole[index])})`);
    }
  }
}

async function escrowProblems(): Promise<string[]> {
  const escrow = new Map<string, number>(); // `${agentId} ${currency}` → micro units
  const add = (agentId: string, code: string, amount: number) => escrow.set(`${agentId} ${code}`, (escrow.get(`${agentId} ${code}`) ?? 0) + micro(amount));
  for (const offer of await refreshOffers()) add(offer.lenderId, offer.currency, offer.amount);
  const problems: string[] = [];
  for (const agent of agents) {
    const who = asAgent(agent);
    for (const loan of await everything(who, "/lending/my-loans?role=borrower")) {
      observe("loan", loan);
      if (loan.status === "ACTIVE") add(agent.id, loan.currency, loan.collateral);
    }
    for (const bet of await everything(who, "/betting/my-bets")) {
      observe("bet", bet);
      const creator = bet.creatorId === agent.id;
      if (bet.status === "MATCHED" || bet.status === "DISPUTED" || (bet.status === "OPEN" && creator)) add(agent.id, bet.currency, bet.amount);
    }
    for (const contract of await everything(who, "/contracts/mine")) {
      observe("contract", contract);
      if (contract.creatorId === agent.id && ["PENDING_SIGNATURE", "ACTIVE"].includes(contract.status)) add(agent.id, contract.currency, contract.escrowAmount);
    }
    for (const negotiation of await everything(who, "/negotiations/mine")) observe("negotiation", negotiation);
    for (const subscription of await everything(who, "/subscriptions/mine")) observe("subscription", subscription);
    for (const approval of await everything(asOwner(agent), "/owner/approvals")) {
      if (approval.kind === "NEGOTIATION") continue;
      observe("approval", approval);
      if (approval.status === "PENDING") add(agent.id, approval.currency, approval.held);
    }
    const balances = await call(who, "GET", "/wallets/balance");
    if (!expectOutcome(balances, ["200"])) continue;
    for (const row of balances.body.balances as View[]) {
      if (row.available < 0 || row.held < 0) problems.push(`agent${agent.n} ${row.currency}: negative balance ${row.available}/${row.held}`);
      const open = escrow.get(`${agent.id} ${row.currency}`) ?? 0;
      if (micro(row.held) !== open) problems.push(`agent${agent.n} ${row.currency}: held ${row.held}, open escrow ${open / 1e6}`);
    }
  }
  return problems;
}

// ---- the run ---------------------------------------------------------------------------------------

const OPERATIONS: [string, number, () => Promise<void>][] = [
  ["pay", 12, pay],
  ["message", 5, message],
  ["negotiate", 7, negotiate],
  ["lend", 9, lend],
  ["bet", 8, bet],
  ["contract", 6, contract],
  ["subscribe", 3, subscribe],
  ["market", 7, market],
  ["webhook", 3, webhook],
  ["decide", 6, decide],
  ["policy", 1, policy],
  ["block", 1, block],
  ["deposit", 3, deposit],
  ["withdraw", 1, withdraw],
  ["read", 4, readSomething],
  ["clock", 4, jump],
  ["deadline", 2, deadlineEdge],
  ["replay", 7, replayOne],
  ["key expiry", 1, keyExpiry],
  ["burst", 10, burst],
];
const WEIGHT = OPERATIONS.reduce((sum, [, weight]) => sum + weight, 0);
function chooseOperation(): [string, () => Promise<void>] {
  let roll = random() * WEIGHT;
  for (const [name, weight, run] of OPERATIONS) {
    roll -= weight;
    if (roll < 0) return [name, run];
  }
  return [OPERATIONS[0]![0], OPERATIONS[0]![2]];
}

console.log(`workload: WORKLOAD_SEED=${SEED}, ${OPS} operations, ${AGENTS} agents, ${ENGINE}`);
const started = Date.now();
const counts = new Map<string, number>();
try {
  for (let n = 1; n <= AGENTS; n++) {
    const registration = await server.register();
    const actor: Actor = { n, id: registration.id, apiKey: registration.apiKey, ownerKey: registration.ownerKey, policy: n % 3 === 0, webhook: false };
    agents.push(actor);
    byId.set(actor.id, actor);
  }
  for (const actor of agents) {
    const usdc = money(300, 800);
    await server.deposit(actor.id, usdc, "USDC");
    deposited.set("USDC", (deposited.get("USDC") ?? 0) + micro(usdc));
    if (actor.n % 2 === 0) {
      await server.deposit(actor.id, 150, "EUR");
      deposited.set("EUR", (deposited.get("EUR") ?? 0) + micro(150));
    }
    if (actor.policy) expectOutcome(await call(asOwner(actor), "PUT", "/owner/policy", policyFor(actor)), ["200"]);
  }
  for (opNumber = 1; opNumber <= OPS && failures < MAX_FAILURES; opNumber++) {
    if (Date.now() - started > SECONDS * SECOND_MS) {
      console.log(`workload: stopped after ${opNumber - 1} operations (WORKLOAD_SECONDS=${SECONDS})`);
      break;
    }
    const [name, run] = chooseOperation();
    opName = name;
    trail = [];
    await run();
    counts.set(opName, (counts.get(opName) ?? 0) + 1);
    if (opNumber % QUIET_EVERY === 0) {
      trail = [];
      await quietPoint(false);
    }
  }
  trail = [];
  await quietPoint(true);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const byCount = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).map(([name, count]) => `${name} ${count}`).join(", ");
  console.log(`workload: operations ${byCount(counts)}`);
  console.log(`workload: answers ${byCount(statuses)}`);
  console.log(`workload: ${keyed.length} keyed requests kept, ${deliveriesReceived} webhook deliveries received, ${seen.size} resources seen`);
  console.log(`workload: WORKLOAD_SEED=${SEED} ${ENGINE}: ${Math.min(opNumber - 1, OPS)} operations in ${seconds} s, ${failures} failures`);
} finally {
  await server.close();
  receiver.stop(true);
}
process.exit(failures === 0 ? 0 : 1);
