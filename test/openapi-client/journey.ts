// A client's first steps with nothing but the package's typed client (openapi-typescript +
// openapi-fetch): register → deposit (operator) → pay → history → message. It must compile under
// `tsc --strict` with no casts: test/openapi.test.ts compiles it and runs it against a real service.
import { agentbankClient } from "../../src/client";

export async function journey(baseUrl: string, adminKey: string) {
  const anonymous = agentbankClient(baseUrl);
  const registered = await Promise.all(
    ["payer", "payee"].map((name) => anonymous.POST("/agents/register", { body: { name, ownerName: "Ada", ownerEmail: "ada@example.com" } })),
  );
  const [payer, payee] = registered.map(({ data, error }) => {
    if (!data) throw new Error(`register: ${error?.error}: ${error?.message}`);
    return data;
  });
  if (!payer || !payee) throw new Error("two agents expected");

  const operator = agentbankClient(baseUrl, { apiKey: adminKey });
  const deposit = await operator.POST("/admin/deposits", { body: { agentId: payer.agent.id, amount: 25, currency: "USDC" } });
  if (!deposit.data) throw new Error(`deposit: ${deposit.error?.message}`);

  const bank = agentbankClient(baseUrl, { apiKey: payer.apiKey });
  const paid = await bank.POST("/payments/send", {
    body: { toAgentId: payee.agent.id, amount: 7.5, currency: "USDC", reason: "first job" },
    params: { header: { "Idempotency-Key": "journey-1" } },
  });
  if (!paid.data) throw new Error(`pay: ${paid.error?.error}: ${paid.error?.message}`);
  // 201 is the payment; 202 means the owner's policy held it for approval.
  if (paid.data.status === "AWAITING_APPROVAL") throw new Error(`held for the owner: approval ${paid.data.approvalId}`);
  const payment: { id: string; amount: number; status: string } = paid.data;

  const history = await bank.GET("/wallets/history", { params: { query: { limit: 5 } } });
  if (!history.data) throw new Error(`history: ${history.error?.message}`);
  const movements: { type: string; amount: number }[] = history.data.data;

  const message = await bank.POST("/messages", { body: { recipientId: payee.agent.id, subject: "thanks", body: "paid 7.5 USDC" } });
  if (!message.data) throw new Error(`message: ${message.error?.message}`);

  const refused = await bank.POST("/payments/send", { body: { toAgentId: payee.agent.id, amount: 50, currency: "USDC" } });
  const code: string | undefined = refused.error?.error;

  return { payment, movements, messageId: message.data.id, refusedWith: code };
}
