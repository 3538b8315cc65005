"""agentbank.testing beyond the fixtures: a failed start, exact amounts, a restart on the same database."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from agentbank.testing import AgentbankStartError, start_agentbank


def test_a_start_failure_shows_what_the_service_printed():
    with pytest.raises(AgentbankStartError) as failure:
        start_agentbank(env={"LOG_LEVEL": "shouting"})
    assert "LOG_LEVEL" in str(failure.value)


def test_fund_sends_the_amount_exactly_and_refuses_what_is_not_one(agentbank):
    agent = agentbank.register()
    agentbank.fund(agent.id, Decimal("0.1"))
    agentbank.fund(agent.id, "0.2")
    agentbank.fund(agent.id, Decimal("0.3"))
    assert agentbank.balance(agent)["available"] == Decimal("0.6")
    for amount in ("ten", Decimal("NaN"), Decimal("Infinity")):
        with pytest.raises(ValueError):
            agentbank.fund(agent.id, amount)
    # A float is not money (0.3 as a float is not 0.3): the client's rule, the harness's too.
    with pytest.raises(TypeError):
        agentbank.fund(agent.id, 0.3)
    assert agentbank.balance(agent)["available"] == Decimal("0.6")
    assert agentbank.ledger_check()["ok"] is True


def test_restart_keeps_the_database_and_close_removes_it():
    harness = start_agentbank()
    try:
        agent = harness.register()
        harness.fund(agent.id, 5)
        first_url = harness.url
        harness.restart()
        assert harness.url != "" and harness.balance(agent)["available"] == Decimal(5)
        assert first_url.startswith("http://127.0.0.1:")
    finally:
        harness.close()
    assert not Path(harness.database_path).parent.exists()
