// The MCP prompts: the common jobs of an agent (pay an invoice, review what waits for its owner's
// approval, understand a refusal) as instructions that use the tools, and completion of their
// enumerated arguments. A prompt is offered only to a key whose scopes open every tool it names, and
// it carries no data of its own: what it leads to is read with the tools, as the caller. The one
// completion that reads data (the agents the caller has dealt with) reads the caller's own history
// through the API with the caller's key, so it offers nothing that key may not read.
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { errorStatus, type ErrorCode } from "../errors";
import { CURRENCIES } from "../money";
import type { ApiCall, Refusal, Tool } from "./catalogue";

type Argument = { name: string; description: string; required: boolean };
type Prompt = {
  name: string;
  title: string;
  description: string;
  /** The tools the prompt leads to: a key refused any of them is not offered the prompt. */
  tools: string[];
  arguments: Argument[];
  text: (args: Record<string, string | undefined>) => string;
};

/** What an agent does about each refusal (the codes of src/errors.ts an agent meets). */
const REMEDIES: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: "The key is missing, unknown, expired or revoked. Ask your owner for a working key; retrying changes nothing.",
  FORBIDDEN: "This caller may not do this at all (someone else's object, a host that is not the service's). Do not retry.",
  NOT_FOUND: "The id names nothing you can see. Check it with the list_… tool of that kind.",
  VALIDATION_ERROR: "An argument is wrong: the message names it and what it accepts. Fix that argument and call again.",
  INSUFFICIENT_BALANCE: "Your available balance is too small. Read get_balances; wait for a deposit or a payment, or pay less.",
  TIER_LIMIT_EXCEEDED: "The amount is above your reputation tier's per-transaction limit. Read get_limits: pay in parts within it, or raise your tier.",
  POLICY_LIMIT_EXCEEDED: "Your owner's policy caps this outflow. Stay within it, or ask your owner to change the policy.",
  COUNTERPARTY_NOT_ALLOWED: "Your owner's policy does not allow this counterparty. Ask your owner, or deal with an allowed agent.",
  KEY_SCOPE_DENIED: "This key's scopes do not open this action. Use a key that has them; retrying with this key changes nothing.",
  KEY_BUDGET_EXCEEDED: "This key's budget for the currency is spent (or it has none in it). Ask for a key with budget left.",
  KEY_INACTIVE: "This key was revoked, expired or replaced. Ask your owner for a new key.",
  AGENT_FROZEN: "Your owner or the operator froze the agent: no money leaves it until it is unfrozen. Money coming in is still credited.",
  INVALID_STATE: "The object is not in a state that allows this (already settled, not your turn, expired). Read it again and act on what it is now.",
  IDEMPOTENCY_KEY_REUSED: "This idempotencyKey was used for a different call. Use a new key for a new call; reuse a key only to retry the same call.",
  PAYLOAD_TOO_LARGE: "The request is too large (a batch of more than 20 messages, or a body over the limit). Send less at once.",
  RATE_LIMIT_EXCEEDED: "Too many requests in the window. Wait the Retry-After seconds, then go on; do not retry in a loop.",
  PAIR_LIMIT_EXCEEDED: "Too many of these between the same two agents in a short time. Wait before the next one.",
  INTERNAL_ERROR: "The service failed. Retry later with the same idempotencyKey: the call is applied at most once.",
  CHAIN_UNAVAILABLE: "The chain cannot be reached now. Retry later with the same idempotencyKey.",
  SERVICE_BUSY: "The service is busy. Retry in a second with the same idempotencyKey.",
};

const CODES = Object.keys(errorStatus) as ErrorCode[];

const PROMPTS: Prompt[] = [
  {
    name: "pay_invoice",
    title: "Pay an invoice",
    description: "Pay another agent an amount you owe it, once, after checking your balance and the payee.",
    tools: ["get_balances", "get_reputation", "send_payment", "get_approval"],
    arguments: [
      { name: "toAgentId", description: "The agent to pay (its id)", required: true },
      { name: "amount", description: "The amount, in major units (12.5)", required: true },
      { name: "currency", description: `One of ${CURRENCIES.join(", ")}`, required: true },
      { name: "reference", description: "The invoice's reference, sent as the payment's reason", required: false },
    ],
    text: ({ toAgentId, amount, currency, reference }) =>
      [
        `Pay ${amount} ${currency} to the agent ${toAgentId}${reference ? ` for the invoice "${reference}"` : ""}, exactly once.`,
        `1. get_balances: your available ${currency} must cover ${amount}; if it does not, stop and say so.`,
        `2. get_reputation of ${toAgentId}: if it is unknown or its tier is low, say so before paying.`,
        `3. send_payment with toAgentId ${toAgentId}, amount ${amount}, currency ${currency}${reference ? `, reason "${reference}"` : ""} and a new idempotencyKey (a UUID). If the call fails or times out, call it again with the same idempotencyKey: it is applied once.`,
        "4. If the answer is AWAITING_APPROVAL, the money is held for your owner: keep the approvalId and follow it with get_approval; do not pay again.",
        "5. If the payment is refused, the error's code says why: the explain_refusal prompt tells what to do about it.",
      ].join("\n"),
  },
  {
    name: "review_approvals",
    title: "Review what waits for approval",
    description: "List your outflows held for your owner's approval and what became of each.",
    tools: ["list_inbox", "get_approval"],
    arguments: [],
    text: () =>
      [
        "Review the outflows of yours that were held for your owner's approval.",
        "1. list_inbox: the notices of held outflows carry an approvalId (a call answered AWAITING_APPROVAL gave you one too); approval.approved, approval.declined and approval.expired notices say how each ended.",
        "2. get_approval for each approvalId: PENDING waits for your owner (until its expiry); APPROVED carries what the outflow answered; DECLINED, EXPIRED and FAILED carry the reason, and the held money is yours again.",
        "3. Report each: what it pays, to whom, how much, its status and what to do next. Never start a held outflow again while it is PENDING: it would be held a second time.",
      ].join("\n"),
  },
  {
    name: "explain_refusal",
    title: "Explain a refusal",
    description: "What an error code from a tool or the API means, and what to do about it.",
    tools: [],
    arguments: [
      { name: "code", description: "The error's code (the text before the colon, e.g. TIER_LIMIT_EXCEEDED)", required: true },
      { name: "message", description: "The error's message, if you have it", required: false },
    ],
    text: ({ code, message }) => {
      const remedy = REMEDIES[code as ErrorCode];
      const known = remedy !== undefined ? `${code}: ${remedy}` : `${code} is not one of agentbank's error codes (${CODES.join(", ")}).`;
      return `A call was refused with ${code}${message ? `: "${message}"` : ""}.\n${known}\nThe message of an agentbank error says what to change; act on it, and retry only calls that moved nothing, with the same idempotencyKey.`;
    },
  },
];

/** The values of an argument that start with what was typed; at most 100 (the spec's bound). */
const startingWith = (values: readonly string[], typed: string) => values.filter((value) => value.toLowerCase().startsWith(typed.toLowerCase())).slice(0, 100);

/** The agents the caller paid, was paid by or held money with: its own latest 100 movements, read as the caller. */
async function knownAgents(call: ApiCall): Promise<string[]> {
  const { status, body } = await call({ method: "GET", path: "/wallets/history?limit=100", headers: {} });
  if (status !== 200) return [];
  const ids = (body as { data: { counterpartyId: string | null }[] }).data.map((entry) => entry.counterpartyId);
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

const invalidParams = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message);

export function registerPrompts(server: Server, tools: Map<string, Tool>, call: ApiCall, refusal: Refusal): void {
  const offered = PROMPTS.filter((prompt) => prompt.tools.every((name) => refusal(tools.get(name)!) === null));
  const promptNamed = (name: string) => {
    const prompt = offered.find((candidate) => candidate.name === name);
    if (!prompt) throw invalidParams(`there is no prompt ${name.slice(0, 100)}; list the prompts to see them`);
    return prompt;
  };

  server.setRequestHandler("prompts/list", () => ({
    prompts: offered.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
  }));

  server.setRequestHandler("prompts/get", (request) => {
    const prompt = promptNamed(request.params.name);
    const given = request.params.arguments ?? {};
    const args: Record<string, string | undefined> = Object.create(null);
    for (const argument of prompt.arguments) {
      const value = Object.hasOwn(given, argument.name) ? given[argument.name]!.slice(0, 500) : undefined;
      if (argument.required && !value) throw invalidParams(`${prompt.name} needs the argument ${argument.name}: ${argument.description}`);
      args[argument.name] = value;
    }
    return { description: prompt.description, messages: [{ role: "user", content: { type: "text", text: prompt.text(args) } }] };
  });

  server.setRequestHandler("completion/complete", async (request) => {
    const { ref, argument } = request.params;
    const none = { completion: { values: [], total: 0, hasMore: false } };
    if (ref.type !== "ref/prompt") return none;
    const prompt = promptNamed(ref.name);
    if (!prompt.arguments.some((candidate) => candidate.name === argument.name)) return none;
    const candidates = argument.name === "currency" ? CURRENCIES : argument.name === "code" ? CODES : argument.name === "toAgentId" ? await knownAgents(call) : [];
    const values = startingWith(candidates, argument.value);
    return { completion: { values, total: values.length, hasMore: false } };
  });
}
