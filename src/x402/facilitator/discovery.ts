// Discovery (the bazaar): a resource the facilitator verified a payment for, whose payment carried the
// `bazaar` extension and names an http(s) URL, is recorded at verify — one entry per (seller, resource
// URL), its terms replaced by the latest verified ones — and listed at GET
// /x402/facilitator/discovery/resources only once a sale of that seller and URL settled. A verify uses
// nothing up, so what it records is bounded instead: X402_DISCOVERY_PER_SELLER entries per seller and
// X402_DISCOVERY_TOTAL in all (a new one makes room by dropping the oldest never sold, or is not
// recorded), an entry of at most 8 KiB with a description of at most 500 characters, and an entry
// goes LIFETIME_MS after its creation or its latest sale (the expiry job).
//
// Everything in an entry is the seller's own words, shown to agents that may act on what they read:
// control and invisible format characters are removed, markup is kept (the answer is JSON text, never
// rendered here; removing tags would mangle honest text and cannot remove an instruction written in
// plain words), and each entry says `descriptionTrust: "untrusted"`.
import { clock, iso } from "../../clock";
import { config } from "../../config";
import { all, find, get, newestFirst, run, write, type PageWindow, type Op, type Row } from "../../db";
import { addToSetting } from "../../db/settings";
import { applyDue, type DueWork } from "../../due";
import { type AgentId, uuid } from "../../ids";
import { parseJson } from "../../json";
import { DAY_MS } from "../../time";
import { x402DiscoveredResources } from "../schema";
import type { FacilitatorRequest } from "./model";

/** An entry larger than this (as JSON: terms, description, the bazaar extension with its schema) is not recorded. */
export const MAX_ENTRY_BYTES = 8 * 1024;
export const MAX_DESCRIPTION_CHARS = 500;
/** An entry without a sale this long (since its creation or its latest sale) is dropped. */
export const LIFETIME_MS = 30 * DAY_MS;

/** An entry of x402_discovered_resources that a settled sale of its seller and URL has (x402_sales). */
const SOLD = `EXISTS (SELECT 1 FROM x402_sales WHERE x402_sales.agent_id = x402_discovered_resources.agent_id
  AND x402_sales.resource = x402_discovered_resources.resource AND x402_sales.status = 'SETTLED')`;

/** An absolute http(s) URL of printable ASCII (no spaces, no control characters). */
const isHttpUrl = (url: string) => /^[\x21-\x7e]+$/.test(url) && ["http:", "https:"].includes(URL.parse(url)?.protocol ?? "");

/**
 * Seller text as shown: invisible format characters (bidi overrides, zero-width) removed, control
 * characters and line breaks as one space, cut to `max` UTF-16 units (what the answer's schema counts)
 * between two characters, "…" included.
 */
function untrustedText(text: string, max: number): string {
  const plain = text.replace(/\p{Cf}/gu, "").replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").trim();
  if (plain.length <= max) return plain;
  let cut = "";
  for (const char of plain) {
    if (cut.length + char.length > max - 1) break;
    cut += char;
  }
  return `${cut}…`;
}

export async function recordDiscovery(agentId: AgentId, request: FacilitatorRequest): Promise<void> {
  const { paymentPayload: payment, paymentRequirements: accepted } = request;
  const bazaar = payment.extensions?.bazaar;
  const url = payment.resource?.url;
  if (bazaar === null || typeof bazaar !== "object" || !url || !isHttpUrl(url)) return;
  const { scheme, network, asset, amount, payTo, maxTimeoutSeconds, extra } = accepted;
  const { description, mimeType } = payment.resource!;
  const entry = JSON.stringify({
    type: "http",
    x402Version: 2,
    accepts: [{ scheme, network, asset, amount, payTo, maxTimeoutSeconds, extra }],
    description: description === undefined ? null : untrustedText(description, MAX_DESCRIPTION_CHARS),
    mimeType: mimeType === undefined ? null : untrustedText(mimeType, 200),
    extensions: { bazaar },
  });
  if (Buffer.byteLength(entry) > MAX_ENTRY_BYTES) return;
  await write(() => record(agentId, url, entry));
}

/** A write op: the entry's terms replaced, or a new entry if the caps leave room for it. */
function* record(agentId: AgentId, url: string, entry: string): Op<void> {
  const now = clock.nowMs();
  const known = yield* get<{ id: string }>("SELECT id FROM x402_discovered_resources WHERE agent_id = ? AND resource = ?", agentId, url);
  if (known) {
    yield* run("UPDATE x402_discovered_resources SET entry = ?, updated_at = ? WHERE id = ?", entry, now, known.id);
    return;
  }
  // New entries one at a time on every instance (this row's lock, to the commit), so the counts hold.
  yield* addToSetting("x402_discovery_entries_made", 1n);
  if (!(yield* makeRoom({ where: "agent_id = ?", params: [agentId] }, config.x402DiscoveryPerSeller))) return;
  if (!(yield* makeRoom({ where: "1 = 1", params: [] }, config.x402DiscoveryTotal))) return;
  yield* run(
    `INSERT INTO x402_discovered_resources (id, agent_id, resource, entry, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (agent_id, resource) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at`,
    uuid(), agentId, url, entry, now + LIFETIME_MS, now, now,
  );
}

/** Room for one more entry among those `scope` selects, at most `cap`: the oldest never sold dropped if needed; false if too many are sold. */
function* makeRoom(scope: { where: string; params: unknown[] }, cap: number): Op<boolean> {
  const { n } = (yield* get<{ n: bigint }>(`SELECT COUNT(*) AS n FROM x402_discovered_resources WHERE ${scope.where}`, ...scope.params))!;
  const over = Number(n) - cap + 1;
  if (over <= 0) return true;
  const unsold = yield* all<{ id: string }>(`SELECT id FROM x402_discovered_resources WHERE ${scope.where} AND NOT ${SOLD} ORDER BY created_at, id LIMIT ?`, ...scope.params, over);
  if (unsold.length < over) return false;
  for (const { id } of unsold) yield* run("DELETE FROM x402_discovered_resources WHERE id = ?", id);
  return true;
}

/** A write op: the entry dropped if it is due and has no sale within LIFETIME_MS; a newer sale moves its expiry instead. */
function* expireIfDue(id: string): Op<boolean> {
  const row = yield* find(x402DiscoveredResources, id, true);
  const now = clock.nowMs();
  if (!row || row.expiresAt > now) return false;
  const { last } = (yield* get<{ last: bigint | null }>(
    "SELECT MAX(created_at) AS last FROM x402_sales WHERE agent_id = ? AND resource = ? AND status = 'SETTLED'",
    row.agentId,
    row.resource,
  ))!;
  if (last !== null && Number(last) + LIFETIME_MS > now) {
    yield* run("UPDATE x402_discovered_resources SET expires_at = ? WHERE id = ?", Number(last) + LIFETIME_MS, id);
    return false;
  }
  yield* run("DELETE FROM x402_discovered_resources WHERE id = ?", id);
  return true;
}

const dueEntries: DueWork = {
  name: "x402.discovery-expire",
  table: "x402_discovered_resources",
  where: "1 = 1",
  dueColumn: "expires_at",
  apply: expireIfDue,
};

/** The job: every due entry dropped, or kept a lifetime past its latest sale. */
export const expireDueDiscoveries = () => applyDue(dueEntries);

function discoveredView(row: Row<typeof x402DiscoveredResources>) {
  const entry = parseJson(row.entry) as { type: string; x402Version: number; accepts: Record<string, unknown>[]; description: string | null; mimeType: string | null; extensions: Record<string, unknown> };
  return { id: row.id, sellerAgentId: row.agentId, resource: row.resource, ...entry, descriptionTrust: "untrusted" as const, lastUpdated: iso(row.updatedAt) };
}

/**
 * The entries whose resource sold and that are not past due, newest first. A public list: what is due
 * is left out, not applied here; the job drops it or, after a newer sale, moves its expiry (seconds).
 */
export function* listDiscovered(window: PageWindow) {
  return yield* newestFirst({ table: x402DiscoveredResources, scope: { where: `expires_at > ? AND ${SOLD}`, params: [clock.nowMs()] } }, window, discoveredView);
}
