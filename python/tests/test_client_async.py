"""AsyncAgentbank against the real service: the same guarantees as the synchronous client (each test runs
its coroutine with asyncio.run, so no async plugin is needed)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from decimal import Decimal

import httpx
import pytest

from agentbank import AsyncAgentbank, AwaitingApproval, InsufficientBalanceError, models
from conftest import Agent, Service, ledger_ok
from proxy import start_proxy

Register = Callable[..., Agent]


def test_async_payment_held_payment_and_error(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=100), register("bob")

    async def scenario() -> None:
        async with alice.async_client() as client:
            paid = await client.payments.send(to_agent_id=bob.id, amount="10.5", currency="USDC")
            assert isinstance(paid, models.PaymentsSendAnswer) and paid.amount == Decimal("10.5")
            with pytest.raises(InsufficientBalanceError) as caught:
                await client.payments.send(to_agent_id=bob.id, amount=95, currency="USDC", reason="too much")
            assert (caught.value.code, caught.value.status) == ("INSUFFICIENT_BALANCE", 400) and caught.value.request_id
            with alice.owner() as owner:
                owner.owner.set_policy(approval_above={"USDC": 20})
            held = await client.payments.send(to_agent_id=bob.id, amount=30, currency="USDC")
            assert isinstance(held, AwaitingApproval) and held.amount == Decimal(30)

    asyncio.run(scenario())
    assert [e.amount for e in bob.client.wallets.history().data] == [Decimal("10.5")]
    ledger_ok(service)


def test_async_payment_whose_answer_was_cut_pays_once(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=100), register("bob")

    async def scenario(url: str) -> object:
        async with AsyncAgentbank(url, alice.api_key) as client:
            return await client.payments.send(to_agent_id=bob.id, amount="4.75", currency="USDC")

    with start_proxy(service.url) as proxy:
        proxy.cut_next_answer("/payments/send")
        paid = asyncio.run(scenario(proxy.url))
        first, second = proxy.requests_to("/payments/send")
    assert isinstance(paid, models.PaymentsSendAnswer)
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert [e.amount for e in bob.client.wallets.history().data] == [Decimal("4.75")]
    ledger_ok(service)


def test_async_429_is_retried_after_its_retry_after(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=10), register("bob")

    async def scenario(url: str) -> object:
        async with AsyncAgentbank(url, alice.api_key) as client:
            return await client.payments.send(to_agent_id=bob.id, amount=1, currency="USDC")

    with start_proxy(service.url) as proxy:
        proxy.refuse_next("/payments/send", "1")
        paid = asyncio.run(scenario(proxy.url))
        first, second = proxy.requests_to("/payments/send")
    assert isinstance(paid, models.PaymentsSendAnswer) and second.at - first.at >= 1.0
    assert bob.client.wallets.history().pagination.total == 1
    ledger_ok(service)


def test_async_iterator_walks_250_entries_in_3_pages(service: Service, register: Register) -> None:
    alice = register("alice")
    with service.admin() as admin:
        for n in range(250):
            admin.admin.deposits(agent_id=alice.id, amount=n + 1, currency="USDC")
    pages: list[str | None] = []

    async def count(request: httpx.Request) -> None:
        if request.url.path == "/wallets/history":
            pages.append(request.url.params.get("after"))

    async def walk() -> list[models.WalletsHistoryItem]:
        http = httpx.AsyncClient(event_hooks={"request": [count]})
        async with AsyncAgentbank(service.url, alice.api_key, http_client=http) as client:
            return [entry async for entry in client.wallets.history.iter(limit=100)]

    entries = asyncio.run(walk())
    assert len(pages) == 3 and pages[0] is None
    assert [e.amount for e in entries] == [Decimal(n) for n in range(250, 0, -1)]
    ledger_ok(service)
