import { timingSafeEqual } from "node:crypto";
import { findAgent, findAgentByKeyHash, type AgentRow, type KeyField } from "../agents/service";
import { config } from "../config";
import { read, write } from "../db";
import { ApiError, notFound } from "../errors";
import { type AgentId, sha256Hex } from "../ids";
import { lastUseIsStale, restrictedKeyByHash, touchKey, type KeyRow } from "../keys/service";
import { BOOTSTRAP_OPERATOR, type Operator } from "../operators/audit";
import { operatorByKeyHash, touchOperatorKey } from "../operators/keys";

export function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message);

type KeyKind = { prefix: string; field: KeyField; name: string; what: string; unknown: string };
const AGENT_KEY: KeyKind = { prefix: "pp_", field: "apiKeyHash", name: "the agent's API key (pp_…)", what: "an agent API key (pp_…)", unknown: "invalid API key: it was rotated or never issued" };
const OWNER_KEY: KeyKind = { prefix: "po_", field: "ownerKeyHash", name: "the owner key (po_…)", what: "an owner key (po_…)", unknown: "invalid owner key: it was rotated or never issued" };

const KINDS = [AGENT_KEY, OWNER_KEY];
const kindOf = (key: string | null) => KINDS.find((kind) => key?.startsWith(kind.prefix));

/** Why a key that is neither kind was refused, and which kind the route takes. */
function malformed(key: string | null, wanted: string): ApiError {
  if (key === null) return unauthorized(`missing key: send Authorization: Bearer <${wanted}>`);
  return unauthorized(`not an agent (pp_…) or owner (po_…) key; this route takes ${wanted}`);
}

/**
 * The agent whose key of the `wanted` kind this is. A missing, malformed or unknown key is 401; a
 * valid key of the other kind is 403 (the caller is known, the key is the wrong one), and both name
 * the key the route takes.
 */
async function keyHolder(key: string | null, wanted: KeyKind): Promise<AgentRow> {
  const kind = kindOf(key);
  if (!key || !kind) throw malformed(key, wanted.name);
  const agent = await read(findAgentByKeyHash(kind.field, sha256Hex(key)));
  if (!agent) throw unauthorized(kind === wanted ? kind.unknown : `${kind.unknown}; this route takes ${wanted.name}`);
  if (kind !== wanted) throw new ApiError("FORBIDDEN", `this is ${kind.what}; this route takes ${wanted.name}`);
  return agent;
}

/** Who calls with an agent's key: the agent, and the restricted key (pp_r_…) it used, null for the agent key itself. */
export type AgentCaller = { agent: AgentRow; key: KeyRow | null };

/**
 * Every kind of credential a request can carry: each request's log line names its kind, and
 * test/credentials.test.ts makes every commitment with each kind and ends it every way it can end.
 */
export const CREDENTIAL_KINDS = ["agent_key", "owner_key", "restricted_key", "oauth_token"] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** The kind of credential a caller came with; `owner`: it sent the owner key. */
export const credentialKind = (caller: AgentCaller, owner: boolean): CredentialKind =>
  owner ? "owner_key" : caller.key === null ? "agent_key" : caller.key.purpose === "oauth_token" ? "oauth_token" : "restricted_key";

const RESTRICTED_PREFIX = "pp_r_";

/**
 * The agent whose API key or restricted key this is. A restricted key that expired or was revoked is
 * unknown at once (the next request). An agent key that happens to begin with pp_r_ is still found.
 */
export async function agentFromHeader(header: string | undefined): Promise<AgentCaller> {
  const key = bearer(header);
  if (key?.startsWith(RESTRICTED_PREFIX)) {
    const restricted = await read(restrictedKeyByHash(sha256Hex(key)));
    if (restricted) {
      if (lastUseIsStale(restricted)) await write(() => touchKey(restricted));
      return { agent: (await read(findAgent(restricted.agentId)))!, key: restricted };
    }
  }
  return { agent: await keyHolder(key, AGENT_KEY), key: null };
}

/** The agent whose human owner calls: only the owner key (po_…), so that an agent cannot act as its owner. */
export const ownerFromHeader = (header: string | undefined): Promise<AgentRow> => keyHolder(bearer(header), OWNER_KEY);

/**
 * The agent `agentId`, if the request carries its owner's credential: the one check of every
 * /owner/agents/{id}/… route. Today that credential is the agent's owner key (po_…); an owner account
 * signed in by e-mail, owning several agents, is added here. Another owner's credential is 404 (the
 * agent is not theirs even to know of), an agent key 403, a missing or unknown key 401.
 */
export async function ownerOfAgent(header: string | undefined, agentId: AgentId): Promise<AgentRow> {
  const owned = await ownerFromHeader(header);
  if (owned.id !== agentId) throw notFound("agent");
  return owned;
}

/** Whether two SHA-256 digests (hex) are equal, in time that does not depend on where they differ. */
const sameHash = (a: string, b: string) => timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
/** Whether `key` is `secret` (both hashed to one length first). */
const isSecret = (key: string | null, secret: string) => key !== null && sameHash(sha256Hex(key), sha256Hex(secret));
/** Whether `hash` is the SHA-256 of ADMIN_API_KEY, the bootstrap operator key (an operator console session keeps only the hash). */
export const isBootstrapKeyHash = (hash: string) => !!config.adminApiKey && sameHash(hash, sha256Hex(config.adminApiKey));

const OPERATOR_PREFIX = "pa_";

/**
 * Who calls an /admin route: the holder of a named operator key (pa_…, read from its row at every
 * request, so a rotated or revoked key is refused at once on every instance), or of ADMIN_API_KEY, the
 * bootstrap key (`admin`). /admin answers 404 when ADMIN_API_KEY is unset (the operator API is off,
 * named keys too), 401 for any other key.
 */
export async function operatorFromHeader(header: string | undefined): Promise<Operator> {
  if (!config.adminApiKey) throw notFound("route");
  const key = bearer(header);
  if (isSecret(key, config.adminApiKey)) return BOOTSTRAP_OPERATOR;
  if (key?.startsWith(OPERATOR_PREFIX)) {
    const operator = await read(operatorByKeyHash(sha256Hex(key)));
    if (!operator) throw unauthorized("invalid operator key: it was rotated, revoked or never issued");
    if (lastUseIsStale(operator)) await write(() => touchOperatorKey(operator.id));
    return { id: operator.id, name: operator.name };
  }
  const kind = kindOf(key);
  throw unauthorized(kind ? `this is ${kind.what}; this route takes an operator key (pa_…, or ADMIN_API_KEY)` : "missing or invalid operator key");
}

/** GET /metrics on the main port: 404 without METRICS_TOKEN, 401 unless the request carries it. */
export function assertMetricsToken(header: string | undefined): void {
  const token = config.metrics?.token;
  if (!token) throw notFound("route");
  if (!isSecret(bearer(header), token)) throw unauthorized("missing or invalid metrics token: send Authorization: Bearer <METRICS_TOKEN>");
}
