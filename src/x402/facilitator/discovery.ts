// Discovery (the bazaar): a resource the facilitator verified a payment for, whose payment carried the
// `bazaar` extension, is listed at GET /x402/facilitator/discovery/resources — one entry per (seller,
// resource URL), its terms replaced by the latest verified ones.
import { clock, iso } from "../../clock";
import { newestFirst, run, write, type PageWindow, type Row } from "../../db";
import { uuid } from "../../ids";
import { parseJson } from "../../json";
import { x402DiscoveredResources } from "../schema";
import type { FacilitatorRequest } from "./model";

/** An entry larger than this (the extension's schema, mostly) is not listed. */
const MAX_ENTRY_BYTES = 64 * 1024;

export async function recordDiscovery(agentId: string, request: FacilitatorRequest): Promise<void> {
  const { paymentPayload: payment, paymentRequirements: accepted } = request;
  const bazaar = payment.extensions?.bazaar;
  const url = payment.resource?.url;
  if (bazaar === null || typeof bazaar !== "object" || !url) return;
  const entry = JSON.stringify({
    type: "http",
    x402Version: 2,
    accepts: [accepted],
    description: payment.resource?.description ?? null,
    mimeType: payment.resource?.mimeType ?? null,
    extensions: { bazaar },
  });
  if (entry.length > MAX_ENTRY_BYTES) return;
  const now = clock.nowMs();
  await write(() =>
    run(
      `INSERT INTO x402_discovered_resources (id, agent_id, resource, entry, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent_id, resource) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at`,
      uuid(), agentId, url, entry, now, now,
    ),
  );
}

function discoveredView(row: Row<typeof x402DiscoveredResources>) {
  const entry = parseJson(row.entry) as { type: string; x402Version: number; accepts: Record<string, unknown>[]; description: string | null; mimeType: string | null; extensions: Record<string, unknown> };
  return { id: row.id, sellerAgentId: row.agentId, resource: row.resource, ...entry, lastUpdated: iso(row.updatedAt) };
}

export function listDiscovered(window: PageWindow) {
  return newestFirst({ table: x402DiscoveredResources, scope: { where: "1 = 1", params: [] } }, window, discoveredView);
}
