// /agents/me/keys: restricted keys (pp_r_…). Made with the agent key, the owner key, or a restricted key
// with `manage` (then never wider than itself); listed with what each spent; revoked at once.
import { Elysia } from "elysia";
import { bearer } from "../auth/keys";
import { door } from "../door";
import { docs, IdParam, paged, PageQuery } from "../http/models";
import { answers } from "../http/responses";
import { CallingKey, KeyBody, NewRestrictedKey, RestrictedKey, RestrictedKeyPage } from "../keys/model";
import { callingKeyView, listKeys, revokedKeyView } from "../keys/service";
import { newKeyBy } from "./new-key";

const createDocs = docs(
  "Agents",
  "Make a restricted key (pp_r_…), shown once: scopes, budgets per currency, a counterparty allowlist and an expiry. With the agent key or the owner key (po_…); a restricted key with the manage scope makes only keys narrower than itself",
  "agent",
);


export const keyRoutes = new Elysia({ prefix: "/agents/me/keys", name: "keys" })
  .use(door)
  // Not idempotent by key: a replay would have to store the new key, and keys are stored only hashed.
  .post("", async ({ agent, key, body, headers, write, status }) => status(201, await write(() => newKeyBy(agent.id, key, bearer(headers.authorization)!, body))), {
    agentOrOwner: true,
    body: KeyBody,
    ...answers({ ...createDocs, security: [{ agentKey: [] }, { ownerKey: [] }] }, { 201: NewRestrictedKey }),
  })
  .get("", ({ agent, query, read }) => paged(query, (window) => read(listKeys(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("Agents", "The agent's restricted keys, newest first, with what each has spent", "agent"), { 200: RestrictedKeyPage }),
  })
  .get("/current", ({ agent, key, read }) => read(callingKeyView(agent.id, key)), {
    agent: true,
    ...answers(docs("Agents", "The key this request came with: its scopes, budgets and what it has spent. Any restricted key may read itself, whatever its scopes", "anyKey"), { 200: CallingKey }),
  })
  .delete("/:id", ({ agent, key, params, write }) => write(() => revokedKeyView(agent.id, params.id, key)), {
    agent: true,
    params: IdParam,
    ...answers(docs("Agents", "Revoke a restricted key and every key made from it, at once (a restricted key: itself or the keys it made)", "agent", ["NOT_FOUND"]), { 200: RestrictedKey }),
  });
