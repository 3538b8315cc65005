import { timingSafeEqual } from "node:crypto";
import { findAgentByKeyHash, type AgentRow } from "../agents/service";
import { config } from "../config";
import { ApiError, notFound } from "../errors";
import { sha256Hex } from "../ids";

export function bearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const unauthorized = () => new ApiError("UNAUTHORIZED", "missing or invalid API key");

export function agentFromHeader(header: string | undefined): AgentRow {
  const key = bearer(header);
  if (!key?.startsWith("pp_")) throw unauthorized();
  const agent = findAgentByKeyHash("api_key_hash", sha256Hex(key));
  if (!agent) throw unauthorized();
  return agent;
}

/** The agent whose owner key (po_…) this is. An agent key here is 403: only a human approves. */
export function ownerFromHeader(header: string | undefined): AgentRow {
  const key = bearer(header);
  if (!key) throw unauthorized();
  if (key.startsWith("pp_") && findAgentByKeyHash("api_key_hash", sha256Hex(key))) {
    throw new ApiError("FORBIDDEN", "this action needs the owner key (po_...), not the agent key");
  }
  const agent = key.startsWith("po_") ? findAgentByKeyHash("owner_key_hash", sha256Hex(key)) : null;
  if (!agent) throw unauthorized();
  return agent;
}

/** /admin answers 404 when no operator key is configured, 401 for any other key. */
export function assertAdmin(header: string | undefined): void {
  if (!config.adminApiKey) throw notFound("route");
  const key = bearer(header);
  const given = Buffer.from(sha256Hex(key ?? ""), "hex");
  const expected = Buffer.from(sha256Hex(config.adminApiKey), "hex");
  if (!key || !timingSafeEqual(given, expected)) throw new ApiError("UNAUTHORIZED", "missing or invalid operator key");
}
