// /agents/me/keys: restricted keys (pp_r_…). Made with the agent key, the owner key, or a restricted key
// with `manage` (then never wider than itself); listed with what each spent; revoked at once.
import { Elysia } from "elysia";
import { read, write } from "../db";
import { auth } from "../auth/macros";
import { bearer } from "../auth/keys";
import { sha256Hex } from "../ids";
import { tellOwnerOfKey } from "../notices/owner";
import { docs, IdParam, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { createKey } from "../keys/create";
import { CallingKey, KeyBody, NewRestrictedKey, RestrictedKey, RestrictedKeyPage } from "../keys/model";
import { keyView, listKeys, revokeKey } from "../keys/service";

const createDocs = docs(
  "Agents",
  "Make a restricted key (pp_r_…), shown once: scopes, budgets per currency, a counterparty allowlist and an expiry. With the agent key or the owner key (po_…); a restricted key with the manage scope makes only keys narrower than itself",
  "agent",
  ["KEY_SCOPE_DENIED"],
);

export const keyRoutes = new Elysia({ prefix: "/agents/me/keys", name: "keys" })
  .use(auth)
  .post(
    "",
    // Not idempotent by key: a replay would have to store the new key, and keys are stored only hashed.
    async ({ agent, key, body, set, headers }) => {
      // Made by a restricted key, it is that key's child; by the agent or owner key, rotating that key revokes it.
      const maker = key ? { parent: key } : { madeWith: sha256Hex(bearer(headers.authorization)!) };
      const by = key ? `The restricted key “${key.name}”` : bearer(headers.authorization)!.startsWith("po_") ? "The owner key" : "The agent's own key";
      const made = await write(function* () {
        const { row, apiKey } = yield* createKey(agent.id, maker, body);
        yield* tellOwnerOfKey(agent.id, { id: row.id, name: row.name, scopes: body.scopes, expiresAt: row.expiresAt }, by);
        return { ...(yield* keyView(row)), apiKey };
      });
      set.status = 201;
      return made;
    },
    { agentOrOwner: true, body: KeyBody, ...answers({ ...createDocs, security: [{ agentKey: [] }, { ownerKey: [] }] }, { 201: NewRestrictedKey }) },
  )
  .get("", ({ agent, query }) => paged(query, (window) => read(listKeys(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("Agents", "The agent's restricted keys, newest first, with what each has spent", "agent"), { 200: RestrictedKeyPage }),
  })
  .get("/current", async ({ agent, key }) => ({ agentId: agent.id, key: key && (await read(keyView(key))) }), {
    agent: true,
    ...answers(docs("Agents", "The key this request came with: its scopes, budgets and what it has spent. Any restricted key may read itself, whatever its scopes", "agent"), { 200: CallingKey }),
  })
  .delete(
    "/:id",
    ({ agent, key, params }) =>
      write(function* () {
        return yield* keyView(yield* revokeKey(agent.id, params.id, key));
      }),
    {
      agent: true,
      params: IdParam,
      ...answers(docs("Agents", "Revoke a restricted key and every key made from it, at once (a restricted key: itself or the keys it made)", "agent", ["NOT_FOUND", "KEY_SCOPE_DENIED"]), { 200: RestrictedKey }),
    },
  );
