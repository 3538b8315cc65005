"""The synchronous client against the real service: money in and out as Decimal, held outflows as their
own result, errors with their fields, retries that never pay twice, and lists walked by their cursor."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from decimal import Decimal

import httpx
import pytest

from agentbank import (
    Agentbank,
    AgentbankError,
    AuthenticationError,
    AwaitingApproval,
    InsufficientBalanceError,
    NotFoundError,
    RateLimitError,
    models,
)
from conftest import Agent, Service, ledger_ok
from proxy import start_proxy

Register = Callable[..., Agent]


def test_a_payment_goes_out_and_comes_back_as_exact_decimals(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds="100.000001"), register("bob")
    paid = alice.client.payments.send(to_agent_id=bob.id, amount=Decimal("12.345678"), currency="USDC", reason="pages")
    assert isinstance(paid, models.PaymentsSendAnswer)
    assert paid.status == "COMPLETED" and paid.amount == Decimal("12.345678") and isinstance(paid.amount, Decimal)
    alice.client.payments.send(to_agent_id=bob.id, amount="0.01", currency="USDC")
    alice.client.payments.send(to_agent_id=bob.id, amount=1, currency="USDC")
    usdc = {b.currency: b for b in alice.client.wallets.balance().balances}["USDC"]
    assert usdc.available == Decimal("86.644323") and isinstance(usdc.available, Decimal)
    assert [e.amount for e in alice.client.wallets.history(limit=3).data] == [Decimal(-1), Decimal("-0.01"), Decimal("-12.345678")]
    ledger_ok(service)


def test_a_float_amount_is_refused_before_anything_is_sent(register: Register) -> None:
    alice, bob = register("alice", funds=10), register("bob")
    with pytest.raises(TypeError, match="not float"):
        alice.client.payments.send(to_agent_id=bob.id, amount=0.1, currency="USDC")  # type: ignore[arg-type]
    assert alice.client.wallets.history().pagination.total == 1  # the deposit only


def test_a_held_payment_is_its_own_result_and_pays_nothing(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=100), register("bob")
    with alice.owner() as owner:
        owner.owner.set_policy(approval_above={"USDC": 10})
    held = alice.client.payments.send(to_agent_id=bob.id, amount="25.5", currency="USDC")
    assert isinstance(held, AwaitingApproval) and not isinstance(held, models.PaymentsSendAnswer)
    assert held.status == "AWAITING_APPROVAL" and held.kind == "PAYMENT" and held.amount == Decimal("25.5")
    assert bob.client.wallets.history().pagination.total == 0
    with alice.owner() as owner:
        approved = owner.owner.approvals_approve(str(held.approval_id))
    assert approved.status == "APPROVED"
    assert [e.amount for e in bob.client.wallets.history().data] == [Decimal("25.5")]
    ledger_ok(service)


def test_an_error_carries_code_message_details_request_id_and_status(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=5), register("bob")
    with pytest.raises(InsufficientBalanceError) as caught:
        alice.client.payments.send(to_agent_id=bob.id, amount=50, currency="USDC")
    error = caught.value
    assert isinstance(error, AgentbankError)
    assert (error.code, error.status) == ("INSUFFICIENT_BALANCE", 400)
    assert error.message.startswith("not enough USDC available")
    assert error.details == {"currency": "USDC", "available": 5, "needed": 50}
    assert error.request_id and error.request_id in str(error)
    with pytest.raises(NotFoundError) as missing:
        alice.client.payments.get(str(uuid.uuid4()))
    assert (missing.value.code, missing.value.status) == ("NOT_FOUND", 404)
    with Agentbank(service.url, "pp_not_a_key") as stranger, pytest.raises(AuthenticationError) as refused:
        stranger.wallets.balance()
    assert refused.value.status == 401
    ledger_ok(service)


def test_a_payment_whose_answer_was_cut_is_retried_with_its_key_and_pays_once(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=100), register("bob")
    with start_proxy(service.url) as proxy, Agentbank(proxy.url, alice.api_key) as client:
        proxy.cut_next_answer("/payments/send")
        paid = client.payments.send(to_agent_id=bob.id, amount="7.25", currency="USDC")
        sent = proxy.requests_to("/payments/send")
    assert isinstance(paid, models.PaymentsSendAnswer) and paid.amount == Decimal("7.25")
    assert len(sent) == 2 and sent[0].headers["idempotency-key"] == sent[1].headers["idempotency-key"]
    assert [e.amount for e in bob.client.wallets.history().data] == [Decimal("7.25")]
    assert bob.client.payments.get(str(paid.id)).amount == Decimal("7.25")
    ledger_ok(service)


def test_a_cut_answer_without_retries_is_a_connection_error_and_the_key_given_replays(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=100), register("bob")
    with start_proxy(service.url) as proxy, Agentbank(proxy.url, alice.api_key, max_retries=0) as client:
        proxy.cut_next_answer("/payments/send")
        with pytest.raises(AgentbankError) as caught:
            client.payments.send(to_agent_id=bob.id, amount=3, currency="USDC", idempotency_key="order-42")
        assert caught.value.code == "CONNECTION_ERROR" and caught.value.status is None
        again = client.payments.send(to_agent_id=bob.id, amount=3, currency="USDC", idempotency_key="order-42")
    assert isinstance(again, models.PaymentsSendAnswer)
    assert bob.client.wallets.history().pagination.total == 1
    ledger_ok(service)


def test_a_429_is_retried_after_its_retry_after(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=100), register("bob")
    with start_proxy(service.url) as proxy, Agentbank(proxy.url, alice.api_key) as client:
        proxy.refuse_next("/payments/send", "1")
        paid = client.payments.send(to_agent_id=bob.id, amount=2, currency="USDC")
        first, second = proxy.requests_to("/payments/send")
    assert isinstance(paid, models.PaymentsSendAnswer)
    assert second.at - first.at >= 1.0
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert bob.client.wallets.history().pagination.total == 1
    ledger_ok(service)


def test_a_retry_after_longer_than_the_policy_waits_is_raised(service: Service, register: Register) -> None:
    alice = register("alice")
    with start_proxy(service.url) as proxy, Agentbank(proxy.url, alice.api_key) as client:
        proxy.refuse_next("/wallets/balance", "3600")
        started = time.monotonic()
        with pytest.raises(RateLimitError) as caught:
            client.wallets.balance()
    assert caught.value.retry_after == 3600 and caught.value.code == "RATE_LIMIT_EXCEEDED"
    assert time.monotonic() - started < 5


def test_the_iterator_walks_250_entries_in_3_pages(service: Service, register: Register) -> None:
    alice = register("alice")
    with service.admin() as admin:
        for n in range(250):
            admin.admin.deposits(agent_id=alice.id, amount=n + 1, currency="USDC")
    pages: list[str] = []

    def count(request: httpx.Request) -> None:
        if request.url.path == "/wallets/history":
            pages.append(str(request.url.params.get("after")))

    with Agentbank(service.url, alice.api_key, http_client=httpx.Client(event_hooks={"request": [count]})) as client:
        entries = list(client.wallets.history.iter(limit=100))
    assert len(pages) == 3 and pages[0] == "None"
    assert [e.amount for e in entries] == [Decimal(n) for n in range(250, 0, -1)]
    assert len({e.id for e in entries}) == 250
    ledger_ok(service)


def test_the_environment_names_the_service_and_the_key(service: Service, register: Register, monkeypatch: pytest.MonkeyPatch) -> None:
    alice = register("alice", funds=1)
    monkeypatch.setenv("AGENTBANK_URL", service.url)
    monkeypatch.setenv("AGENTBANK_API_KEY", alice.api_key)
    with Agentbank() as client:
        assert str(client.agents.me().id) == alice.id
    monkeypatch.delenv("AGENTBANK_URL")
    with pytest.raises(AgentbankError, match="AGENTBANK_URL"):
        Agentbank()


def test_a_post_without_an_idempotency_key_is_not_sent_again_after_a_cut_answer(service: Service) -> None:
    with start_proxy(service.url) as proxy, Agentbank(proxy.url, "") as client:
        proxy.cut_next_answer("/agents/register")
        with pytest.raises(AgentbankError) as caught:
            client.agents.register(name="once", owner_name="Owner", owner_email=f"{uuid.uuid4().hex[:12]}@example.com")
        assert caught.value.code == "CONNECTION_ERROR"
        assert len(proxy.requests_to("/agents/register")) == 1


def test_a_read_that_timed_out_is_sent_again_and_a_registration_is_not(service: Service, register: Register) -> None:
    alice = register("alice", funds=1)
    with start_proxy(service.url) as proxy, Agentbank(proxy.url, alice.api_key, timeout=0.5) as client:
        proxy.stall_next("/wallets/balance", 1.5)
        assert client.wallets.balance().balances
        assert len(proxy.requests_to("/wallets/balance")) == 2
        proxy.stall_next("/agents/register", 1.5)
        with pytest.raises(AgentbankError) as caught:
            client.agents.register(name="slow", owner_name="Owner", owner_email=f"{uuid.uuid4().hex[:12]}@example.com")
        assert caught.value.code == "CONNECTION_ERROR" and "ReadTimeout" in caught.value.message
        assert len(proxy.requests_to("/agents/register")) == 1
