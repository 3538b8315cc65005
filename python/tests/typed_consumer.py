"""A consumer of the installed package, checked with `mypy --strict` and run by .ci/run: the client's and
the harness's types as an application sees them (held payments a type of their own, amounts as Decimal)."""

from __future__ import annotations

from decimal import Decimal

from agentbank import Agentbank, AgentbankError, AwaitingApproval
from agentbank.testing import Harness, RegisteredAgent, start_agentbank


def pay(bank: Agentbank, to_agent_id: str, amount: Decimal) -> str:
    """Pays and says what happened: a payment id, or the approval it waits for."""
    paid = bank.payments.send(to_agent_id=to_agent_id, amount=amount, currency="USDC", reason="typed consumer")
    if isinstance(paid, AwaitingApproval):
        return f"held for the owner: approval {paid.approval_id}"
    return f"paid {paid.amount} {paid.currency}: payment {paid.id}"


def available(bank: Agentbank, currency: str = "USDC") -> Decimal:
    return sum((row.available for row in bank.wallets.balance().balances if row.currency == currency), Decimal(0))


def main() -> None:
    harness: Harness
    with start_agentbank() as harness:
        payer: RegisteredAgent = harness.register("payer")
        payee = harness.register("payee")
        harness.fund(payer.id, Decimal("10"))
        print(pay(payer.client, payee.id, Decimal("2.25")))
        assert available(payee.client) == Decimal("2.25")
        try:
            payer.client.payments.send(to_agent_id=payee.id, amount="1000", currency="USDC")
        except AgentbankError as error:
            print(f"refused as expected: {error.code} ({error.status})")
        else:
            raise AssertionError("a payment above the balance was made")
        check = harness.ledger_check()
        assert check["ok"] is True, check


if __name__ == "__main__":
    main()
