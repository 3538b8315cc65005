"""Verifying agentbank's webhook deliveries (Standard Webhooks, with the `standardwebhooks` package).

agentbank signs every delivery, an agent's and an owner account's, with the headers `webhook-id`,
`webhook-timestamp` (wall-clock seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of
"id.timestamp.body">` keyed by the `whsec_…` secret). A receiver verifies the raw body as received,
refuses a delivery older or newer than five minutes, and dedupes on `webhook-id` (an event can come
twice: after a restart, or when sent again by hand):

    from agentbank.webhooks import verify, WebhookVerificationError

    event = verify(request.body, request.headers, secret)   # raises WebhookVerificationError
    if seen(event.id): return 200
    if event.event == "payment.received": ...
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError

from ._core import loads

__all__ = ["WebhookEvent", "WebhookVerificationError", "verify"]


@dataclass(frozen=True)
class WebhookEvent:
    """A verified delivery: `id` is its webhook-id (the same on every delivery of one event); `body` the
    parsed JSON (an agent's webhook: {event, agentId, data, timestamp}; an owner's JSON format:
    {type, timestamp, data}), numbers read as Decimal."""

    id: str
    timestamp: int
    body: Mapping[str, Any]

    @property
    def event(self) -> str | None:
        """The event's name (`payment.received`, `notification.financial`, …): `event` or `type`."""
        name = self.body.get("event", self.body.get("type"))
        return name if isinstance(name, str) else None

    @property
    def data(self) -> Any:
        return self.body.get("data")


def verify(payload: bytes | str, headers: Mapping[str, str], secret: str) -> WebhookEvent:
    """The delivery, when its signature is the secret's and its timestamp within five minutes; else
    WebhookVerificationError. `payload` is the body exactly as received (not re-serialized JSON)."""
    lowered = {key.lower(): value for key, value in headers.items()}
    Webhook(secret).verify(payload, lowered, json_parse=False)
    text = payload.decode() if isinstance(payload, bytes) else payload
    body = loads(text)
    if not isinstance(body, Mapping):
        raise WebhookVerificationError("the delivery's body is not a JSON object")
    return WebhookEvent(id=lowered["webhook-id"], timestamp=int(lowered["webhook-timestamp"]), body=body)
