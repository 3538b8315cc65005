// Cursor paging (`after=<id>`): every list route takes it beside `offset`; following `nextAfter` visits
// each item once, in the order offset paging gives, and items added meanwhile neither repeat nor shift
// the pages that follow.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { ADMIN_KEY, startServer, type Agent, type TestServer } from "./helpers/server";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

type Page = { data: { id: string; agentId?: string }[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean; nextAfter: string | null } };

async function pageOf(path: string, key: string): Promise<Page> {
  const reply = await server.request<Page>("GET", path, { key });
  expect(reply.status).toBe(200);
  return reply.body;
}

/** Every item of a list, following nextAfter from the first page; `between` runs after each page. */
async function walk(path: string, key: string, limit: number, between: () => Promise<void> = async () => {}) {
  const items: Page["data"] = [];
  let page = await pageOf(`${path}${path.includes("?") ? "&" : "?"}limit=${limit}`, key);
  for (;;) {
    items.push(...page.data);
    expect(page.data.length).toBeLessThanOrEqual(limit);
    if (!page.pagination.hasMore) {
      expect(page.pagination.nextAfter).toBeNull();
      return items;
    }
    const last = page.data.at(-1)!;
    expect(page.pagination.nextAfter).toBe(last.agentId ?? last.id);
    await between();
    page = await pageOf(`${path}${path.includes("?") ? "&" : "?"}limit=${limit}&after=${page.pagination.nextAfter}`, key);
  }
}

const pay = (from: Agent, to: Agent, amount: number) =>
  server.request("POST", "/payments/send", { key: from.apiKey, body: { toAgentId: to.id, amount, currency: "USDC" } });

describe("cursor paging", () => {
  test("history: nextAfter walks every entry once in offset order; payments made meanwhile neither repeat nor shift it", async () => {
    const payer = await server.register();
    const payee = await server.register();
    await server.fund(payer.id, 100);
    for (let i = 1; i <= 9; i++) expect((await pay(payer, payee, i)).status).toBe(201);
    const byOffset = (await pageOf("/wallets/history?limit=100", payer.apiKey)).data.map((entry) => entry.id);
    expect(byOffset).toHaveLength(10);

    expect((await walk("/wallets/history", payer.apiKey, 3)).map((entry) => entry.id)).toEqual(byOffset);
    // Newer entries arrive at the head of the list; a reader walking towards older ones sees none twice.
    let extra = 0;
    const walked = await walk("/wallets/history", payer.apiKey, 3, async () => {
      expect((await pay(payer, payee, 0.5)).status).toBe(201);
      extra++;
    });
    expect(extra).toBe(3);
    expect(walked.map((entry) => entry.id)).toEqual(byOffset);

    // `offset` counts from the cursor.
    const skipped = await pageOf(`/wallets/history?limit=2&after=${byOffset[1]}&offset=2`, payer.apiKey);
    expect(skipped.data.map((entry) => entry.id)).toEqual(byOffset.slice(4, 6));
    await expectLedgerOk(server);
  });

  test("history: a cursor that is not an entry of the caller's history is 400", async () => {
    const [mine, theirs] = [await server.register(), await server.register()];
    await server.fund(mine.id, 1);
    await server.fund(theirs.id, 1);
    const theirEntry = (await pageOf("/wallets/history", theirs.apiKey)).data[0]!.id;
    for (const after of [theirEntry, "999999999999", "0", "-1", "abc", "1e3", "12345678901234567890", crypto.randomUUID()]) {
      const reply = await server.request("GET", `/wallets/history?after=${encodeURIComponent(after)}`, { key: mine.apiKey });
      expect(reply.status, after).toBe(400);
      expect(reply.body.error).toBe("VALIDATION_ERROR");
    }
  });

  test("inbox: the reader keeps its place while it marks the messages it has read (unreadOnly)", async () => {
    const [sender, reader] = [await server.register(), await server.register()];
    const sent: string[] = [];
    for (let i = 0; i < 7; i++) {
      const reply = await server.request("POST", "/messages", { key: sender.apiKey, body: { recipientId: reader.id, subject: `m${i}`, body: "hi" } });
      expect(reply.status).toBe(201);
      sent.push(reply.body.id);
    }
    const seen: string[] = [];
    let page = await pageOf("/messages/inbox?unreadOnly=true&limit=2", reader.apiKey);
    for (;;) {
      for (const message of page.data) {
        seen.push(message.id);
        expect((await server.request("POST", `/messages/${message.id}/read`, { key: reader.apiKey })).status).toBe(200);
      }
      if (!page.pagination.nextAfter) break;
      page = await pageOf(`/messages/inbox?unreadOnly=true&limit=2&after=${page.pagination.nextAfter}`, reader.apiKey);
    }
    expect(seen).toEqual(sent.toReversed());
  });

  test("blocks: the cursor is the blocked agent's id", async () => {
    const blocker = await server.register();
    const blocked: string[] = [];
    for (let i = 0; i < 5; i++) {
      const other = await server.register();
      expect((await server.request("POST", "/agents/me/block", { key: blocker.apiKey, body: { agentId: other.id } })).status).toBe(200);
      blocked.push(other.id);
    }
    const walked = await walk("/agents/me/blocks", blocker.apiKey, 2);
    expect(walked.map((item) => item.agentId)).toEqual(blocked.toReversed());
  });

  test("every list route takes `after`: an id that is not in the list, or not an id, is 400; an empty list ends at once", async () => {
    const spec = (await server.request("GET", "/swagger/json")).body as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const lists = Object.entries(spec.paths)
      .filter(([path, methods]) => !path.includes("{") && methods.get?.parameters?.some((parameter) => parameter.name === "after" && parameter.in === "query"))
      .map(([path]) => path);
    // The lists of SPEC.md and the contract, and the owner's queue.
    expect(lists.length).toBeGreaterThanOrEqual(15);
    const agent = await server.register();
    for (const path of lists) {
      const key = path.startsWith("/owner/") ? agent.ownerKey : path.startsWith("/admin/") ? ADMIN_KEY : agent.apiKey;
      // Unknown ids of every scheme, then what no list's id looks like: too long, or outside [A-Za-z0-9_-].
      for (const after of [crypto.randomUUID(), "bet_unknownUnknown", "999999999999", "not-an-id", "", "a".repeat(65), "bet_x'--", "a b", "lo_é"]) {
        const reply = await server.request("GET", `${path}?after=${encodeURIComponent(after)}`, { key });
        expect(reply.status, `${path} after=${after}`).toBe(400);
        expect(reply.body.error).toBe("VALIDATION_ERROR");
      }
      const empty = await pageOf(path, key);
      if (empty.data.length === 0) expect(empty.pagination).toMatchObject({ total: 0, hasMore: false, nextAfter: null });
      else expect(empty.pagination.hasMore).toBe(empty.pagination.nextAfter !== null);
    }
  });
});
