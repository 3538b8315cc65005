"""A real delivery of the service, received by a small HTTP receiver and verified with
agentbank.webhooks.verify (Standard Webhooks); a changed body, another secret or a stale timestamp fail."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentbank.webhooks import WebhookVerificationError, verify
from conftest import Agent, Service, ledger_ok

Register = Callable[..., Agent]
Delivery = tuple[bytes, dict[str, str]]


@contextmanager
def receiver() -> Iterator[tuple[str, list[Delivery]]]:
    received: list[Delivery] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            received.append((body, {k: v for k, v in self.headers.items()}))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    finally:
        server.shutdown()
        server.server_close()


def test_a_delivery_verifies_and_a_changed_one_does_not(service: Service, register: Register) -> None:
    alice, bob = register("alice", funds=20), register("bob")
    with receiver() as (url, received):
        secret = bob.client.agents.set_me_webhook(webhook_url=url).secret
        assert secret and secret.startswith("whsec_")
        alice.client.payments.send(to_agent_id=bob.id, amount="3.5", currency="USDC")
        deadline = time.monotonic() + 15
        while not received and time.monotonic() < deadline:
            time.sleep(0.05)
    assert received, "no delivery arrived"
    body, headers = received[0]
    event = verify(body, headers, secret)
    assert event.event == "payment.received" and event.id == headers["webhook-id"]
    assert event.data["amount"] == Decimal("3.5")
    with pytest.raises(WebhookVerificationError):
        verify(body.replace(b"3.5", b"35"), headers, secret)
    with pytest.raises(WebhookVerificationError):
        verify(body, headers, "whsec_" + "A" * 32)
    with pytest.raises(WebhookVerificationError):
        verify(body, {**headers, "webhook-timestamp": str(int(time.time()) - 3600)}, secret)
    ledger_ok(service)
