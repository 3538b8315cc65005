"""The pytest plugin's fixtures, used as a consumer uses them: only `agentbank` / `agentbank_session`.

CI copies this file outside the checkout and runs it against the installed wheel (.ci/run, "Python").
"""

from decimal import Decimal


def test_register_fund_pay(agentbank):
    payer, payee = agentbank.register("payer"), agentbank.register("payee")
    assert payer.id != payee.id and payer.api_key.startswith("pp_") and payer.owner_key.startswith("po_")
    agentbank.fund(payer.id, Decimal("20"))
    paid = agentbank.request(
        "POST", "/payments/send", key=payer.api_key, json={"toAgentId": payee.id, "amount": 7.5, "currency": "USDC"}
    )
    assert paid.status_code == 201, paid.text
    assert agentbank.balance(payee) == {"available": Decimal("7.5"), "held": Decimal(0)}
    assert agentbank.balance(payer) == {"available": Decimal("12.5"), "held": Decimal(0)}
    assert agentbank.ledger_check()["ok"] is True


def test_held_payment_approved_by_the_owner_and_one_expired_past_its_deadline(agentbank):
    payer, payee = agentbank.register("payer"), agentbank.register("payee")
    agentbank.fund(payer.id, "100")
    policy = agentbank.request(
        "PUT", "/owner/policy", key=payer.owner_key,
        json={"perTransaction": {}, "daily": {}, "allowlist": None, "approvalAbove": {"USDC": 20}},
    )
    assert policy.status_code == 200, policy.text

    held = agentbank.request(
        "POST", "/payments/send", key=payer.api_key, json={"toAgentId": payee.id, "amount": 30, "currency": "USDC"}
    )
    assert held.status_code == 202, held.text
    assert held.json()["status"] == "AWAITING_APPROVAL"
    assert agentbank.balance(payer) == {"available": Decimal(70), "held": Decimal(30)}
    approved = agentbank.request("POST", f"/owner/approvals/{held.json()['approvalId']}/approve", key=payer.owner_key)
    assert approved.status_code == 200, approved.text
    assert agentbank.balance(payee)["available"] == Decimal(30)

    waiting = agentbank.request(
        "POST", "/payments/send", key=payer.api_key, json={"toAgentId": payee.id, "amount": 25, "currency": "USDC"}
    )
    assert waiting.status_code == 202, waiting.text
    assert agentbank.balance(payer) == {"available": Decimal(45), "held": Decimal(25)}
    # Past the approval's 24 h: it expires and the hold goes back.
    agentbank.advance_clock(25 * 3600)
    assert agentbank.balance(payer) == {"available": Decimal(70), "held": Decimal(0)}
    assert agentbank.balance(payee)["available"] == Decimal(30)
    assert agentbank.ledger_check()["ok"] is True


def test_each_test_gets_a_fresh_database(agentbank):
    # Nothing from the tests before: the operator sees no agent.
    listed = agentbank.admin("GET", "/admin/agents")
    assert listed.status_code == 200, listed.text
    assert listed.json()["data"] == []


def test_the_session_service_is_shared(agentbank_session):
    agent = agentbank_session.register()
    agentbank_session.fund(agent.id, 1)
    assert agentbank_session.url.startswith("http://127.0.0.1:")
    assert agentbank_session.ledger_check()["ok"] is True

