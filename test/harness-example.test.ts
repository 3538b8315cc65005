// The README's example, verbatim: an agent paying another inside your own `bun test`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAgentbank, type Agentbank } from "agentbank/testing";

let bank: Agentbank;
beforeAll(async () => (bank = await startAgentbank()));
afterAll(() => bank.close());

test("my agent pays for a job", async () => {
  const [me, worker] = [await bank.register(), await bank.register()];
  await bank.fund(me.id, 20);
  const paid = await bank.request("POST", "/payments/send", { key: me.apiKey, body: { toAgentId: worker.id, amount: 7.5, currency: "USDC" } });
  expect(paid.status).toBe(201);
  expect(await bank.balance(worker)).toEqual({ available: 7.5, held: 0 });
  expect((await bank.checkLedger()).ok).toBe(true);
});
