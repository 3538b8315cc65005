import { timingSafeEqual } from "node:crypto";
import { findAgentByKeyHash, type AgentRow } from "../agents/service";
import { config } from "../config";
import { read } from "../db";
import { ApiError, notFound } from "../errors";
import { sha256Hex } from "../ids";

export function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message);

/** Why a key that is not the one a route takes was refused: which kind it is, which kind was needed. */
function wrongKind(key: string | null, wanted: string): ApiError {
  if (key === null) return unauthorized(`missing key: send Authorization: Bearer <${wanted}>`);
  if (key.startsWith("po_")) return unauthorized(`this is an owner key (po_…); this route takes ${wanted}`);
  if (key.startsWith("pp_")) return unauthorized(`this is an agent API key (pp_…); this route takes ${wanted}`);
  return unauthorized(`not an agent (pp_…) or owner (po_…) key; this route takes ${wanted}`);
}

const AGENT_KEY = "the agent's API key (pp_…)";
const OWNER_KEY = "the owner key (po_…)";

export async function agentFromHeader(header: string | undefined): Promise<AgentRow> {
  const key = bearer(header);
  if (!key?.startsWith("pp_")) throw wrongKind(key, AGENT_KEY);
  const agent = await read(findAgentByKeyHash("api_key_hash", sha256Hex(key)));
  if (!agent) throw unauthorized("invalid API key: it was rotated or never issued");
  return agent;
}

/** The agent whose owner key (po_…) this is. An agent key here is 403: only a human approves. */
export async function ownerFromHeader(header: string | undefined): Promise<AgentRow> {
  const key = bearer(header);
  if (key?.startsWith("pp_") && (await read(findAgentByKeyHash("api_key_hash", sha256Hex(key))))) {
    throw new ApiError("FORBIDDEN", "this action needs the owner key (po_...), not the agent key: only a human approves");
  }
  if (!key?.startsWith("po_")) throw wrongKind(key, OWNER_KEY);
  const agent = await read(findAgentByKeyHash("owner_key_hash", sha256Hex(key)));
  if (!agent) throw unauthorized("invalid owner key");
  return agent;
}

/** /admin answers 404 when no operator key is configured, 401 for any other key. */
export function assertAdmin(header: string | undefined): void {
  if (!config.adminApiKey) throw notFound("route");
  const key = bearer(header);
  const given = Buffer.from(sha256Hex(key ?? ""), "hex");
  const expected = Buffer.from(sha256Hex(config.adminApiKey), "hex");
  if (!key || !timingSafeEqual(given, expected)) {
    throw key?.startsWith("pp_") || key?.startsWith("po_") ? wrongKind(key, "the operator key (ADMIN_API_KEY)") : unauthorized("missing or invalid operator key");
  }
}
