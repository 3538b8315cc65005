"""The framework recipes in python/examples, against a real agentbank (the plugin's `agentbank` fixture).

Each agent gets a restricted key (read + pay, a budget) and pays through its framework's tool. The
frameworks are optional here (skipped when absent); CI installs them from
examples/requirements-recipes.txt and sets AGENTBANK_REQUIRE_RECIPES=1, so there a missing one fails.
"""

from __future__ import annotations

import asyncio
import os
import sys
from decimal import Decimal
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))


def framework(module: str) -> None:
    if os.environ.get("AGENTBANK_REQUIRE_RECIPES") != "1":
        pytest.importorskip(module)


def restricted_key(agentbank, agent) -> str:
    """A key for the agent's framework: it may read and pay, 5 USDC a payment, 10 in all."""
    made = agentbank.request(
        "POST", "/agents/me/keys", key=agent.api_key,
        json={"name": "framework agent", "scopes": ["read", "pay"], "budgets": {"USDC": {"perTransaction": 5, "total": 10}}},
    )
    assert made.status_code == 201, made.text
    return str(made.json()["apiKey"])


def payer_and_payee(agentbank):
    payer, payee = agentbank.register("buyer"), agentbank.register("seller")
    agentbank.fund(payer.id, 50)
    return payer, payee, restricted_key(agentbank, payer)


def test_langchain_agent_pays_through_mcp_with_a_restricted_key(agentbank):
    framework("langchain_mcp_adapters")
    import langchain_mcp

    payer, payee, key = payer_and_payee(agentbank)
    names = {tool.name for tool in asyncio.run(langchain_mcp.load_tools(agentbank.url, key))}
    assert {"get_balances", "send_payment"} <= names
    assert "start_negotiation" not in names and "offer_loan" not in names  # outside the key's scopes

    payment = asyncio.run(langchain_mcp.pay(agentbank.url, key, payee.id, 2.5, "report"))
    assert payment["status"] == "COMPLETED", payment
    assert agentbank.balance(payee) == {"available": Decimal("2.5"), "held": Decimal(0)}
    # Above the key's budget per payment: a tool error, and nothing moves.
    with pytest.raises(Exception, match="^KEY_BUDGET_EXCEEDED: "):
        asyncio.run(langchain_mcp.pay(agentbank.url, key, payee.id, 6, "too much"))
    assert agentbank.balance(payee)["available"] == Decimal("2.5")
    assert agentbank.ledger_check()["ok"] is True


def test_openai_agents_sdk_agent_pays_through_mcp_with_a_restricted_key(agentbank):
    framework("agents")
    import openai_agents_mcp

    payer, payee, key = payer_and_payee(agentbank)
    names = set(asyncio.run(openai_agents_mcp.tool_names(agentbank.url, key)))
    assert {"get_balances", "send_payment"} <= names
    assert "start_negotiation" not in names and "offer_loan" not in names

    payment = asyncio.run(openai_agents_mcp.pay(agentbank.url, key, payee.id, 4, "dataset"))
    assert payment["status"] == "COMPLETED", payment
    assert agentbank.balance(payee)["available"] == Decimal(4)
    with pytest.raises(RuntimeError, match="^KEY_BUDGET_EXCEEDED: "):
        asyncio.run(openai_agents_mcp.pay(agentbank.url, key, payee.id, 7, "too much"))
    assert agentbank.balance(payer)["available"] == Decimal(46)
    assert agentbank.ledger_check()["ok"] is True


def test_plain_function_tools_pay_and_read(agentbank):
    import plain_tools

    payer, payee, key = payer_and_payee(agentbank)
    tools = plain_tools.AgentbankTools(agentbank.url, key)
    try:
        assert [f.__name__ for f in tools.functions] == ["get_balances", "get_history", "send_payment", "get_approval"]
        payment = tools.send_payment(payee.id, 3, reason="plain tools")
        assert payment["status"] == "COMPLETED", payment
        usdc = next(row for row in tools.get_balances() if row["currency"] == "USDC")
        assert Decimal(str(usdc["available"])) == Decimal(47)
        assert len(tools.get_history(limit=10)) == 2  # the deposit and the payment
        with pytest.raises(plain_tools.AgentbankToolError, match="^[A-Z_]+: "):
            tools.send_payment(payee.id, 100)
    finally:
        tools.close()
    assert agentbank.balance(payee)["available"] == Decimal(3)
    assert agentbank.ledger_check()["ok"] is True
