// SIGTERM under load: the service drains (answers carry Connection: close) before it stops listening,
// so no request already on its way down an open connection is reset, and every payment it executed was
// answered to its client.
import { afterAll, expect, test } from "bun:test";
import { expectLedgerOk } from "./helpers/ledger";
import { startServer, type TestServer } from "./helpers/server";

let server: TestServer;
afterAll(() => server?.close());

test("SIGTERM under load: nothing executed goes unanswered, no open connection is reset before the drain ends", async () => {
  server = await startServer();
  const payer = await server.register();
  const payee = await server.register();
  await server.deposit(payer.id, 1_000_000);
  let answered = 0;
  let stopping = false;
  let killedAt = 0;
  const resets: number[] = [];
  const worker = async () => {
    while (!stopping) {
      try {
        const response = await fetch(`${server.url}/payments/send`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${payer.apiKey}` },
          body: JSON.stringify({ toAgentId: payee.id, amount: 0.01, currency: "USDC" }),
        });
        await response.text();
        if (response.status === 201) answered++;
      } catch (error) {
        // After the listener closed, connecting is refused: expected, the worker waits for the end.
        if (String((error as Error).message).startsWith("ECONNRESET")) resets.push(performance.now() - killedAt);
        await Bun.sleep(20);
      }
    }
  };
  const workers = Array.from({ length: 40 }, worker);
  // Under load first (one payer is a hot row: PostgreSQL takes longer to get there).
  for (const deadline = Date.now() + 10_000; answered <= 100 && Date.now() < deadline; ) await Bun.sleep(20);
  expect(answered).toBeGreaterThan(100);
  killedAt = performance.now();
  await server.stop("SIGTERM");
  const exitMs = performance.now() - killedAt;
  stopping = true;
  await Promise.all(workers);
  // Only connections opened after the drain began can be cut, when the listener closes at its end.
  expect(resets.filter((ms) => ms < 450)).toEqual([]);
  expect(exitMs).toBeLessThan(5_000);

  await server.restart();
  const history = (await server.request("GET", "/wallets/history?limit=1", { key: payer.apiKey })).body;
  // Deposit + one entry per executed payment: each of them was answered 201.
  expect(history.pagination.total - 1).toBe(answered);
  await expectLedgerOk(server);
}, 30_000);
