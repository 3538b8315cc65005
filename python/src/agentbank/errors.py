"""The exceptions of the client: every refusal of the service is an AgentbankError carrying the answer's
`code`, `message`, `details`, `request_id` and HTTP `status`, raised as the class of its code's family
(the codes are the service's, src/errors.ts; tests/test_client_errors.py fails on a code with no family).

A held outflow (202 AWAITING_APPROVAL) is not an error: it comes back as models.AwaitingApproval."""

from __future__ import annotations

from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any


class AgentbankError(Exception):
    """Base class: what the service (or the way to it) refused, with the answer's fields."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int | None,
        details: Any = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.details = details
        self.request_id = request_id
        #: Seconds the service asked to wait (Retry-After), when it did.
        self.retry_after = retry_after

    def __str__(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.code}: {self.message}{where}"


class AuthenticationError(AgentbankError):
    """401: the key is missing, malformed or unknown."""


class PermissionDeniedError(AgentbankError):
    """403: the key may not do this (wrong kind of key, a restricted key's scope, a frozen agent)."""


class LimitExceededError(AgentbankError):
    """403: a tier, owner policy, counterparty allowlist or key budget stops this outflow."""


class InvalidRequestError(AgentbankError):
    """400/405/413: the request itself is wrong; `details` lists the fields."""


class InsufficientBalanceError(AgentbankError):
    """400: the available balance does not cover the amount; `details` has the figures."""


class NotFoundError(AgentbankError):
    """404: nothing of that id that the caller may see."""


class ConflictError(AgentbankError):
    """409: the thing is not in a state that allows this, or an Idempotency-Key was reused with another body."""


class RateLimitError(AgentbankError):
    """429: too many requests (or messages to one agent); `retry_after` says when to try again."""


class ServiceError(AgentbankError):
    """5xx: the service or the chain could not do it now; sending the same request again is safe."""


class AgentbankConnectionError(AgentbankError):
    """No answer: the connection failed or timed out (after the retries the request allowed)."""


FAMILIES: Mapping[str, type[AgentbankError]] = {
    "UNAUTHORIZED": AuthenticationError,
    "FORBIDDEN": PermissionDeniedError,
    "KEY_SCOPE_DENIED": PermissionDeniedError,
    "KEY_INACTIVE": PermissionDeniedError,
    "AGENT_FROZEN": PermissionDeniedError,
    "TIER_LIMIT_EXCEEDED": LimitExceededError,
    "POLICY_LIMIT_EXCEEDED": LimitExceededError,
    "COUNTERPARTY_NOT_ALLOWED": LimitExceededError,
    "KEY_BUDGET_EXCEEDED": LimitExceededError,
    "VALIDATION_ERROR": InvalidRequestError,
    "METHOD_NOT_ALLOWED": InvalidRequestError,
    "PAYLOAD_TOO_LARGE": InvalidRequestError,
    "INSUFFICIENT_BALANCE": InsufficientBalanceError,
    "NOT_FOUND": NotFoundError,
    "INVALID_STATE": ConflictError,
    "IDEMPOTENCY_KEY_REUSED": ConflictError,
    "RATE_LIMIT_EXCEEDED": RateLimitError,
    "PAIR_LIMIT_EXCEEDED": RateLimitError,
    "INTERNAL_ERROR": ServiceError,
    "CHAIN_UNAVAILABLE": ServiceError,
    "SERVICE_BUSY": ServiceError,
}

_BY_STATUS: Mapping[int, type[AgentbankError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Retry-After as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def error_from_answer(status: int, headers: Mapping[str, str], body: Any) -> AgentbankError:
    """The exception for an error answer: its body's code picks the class; an unknown code, its status."""
    fields: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    code = fields.get("error")
    code = code if isinstance(code, str) else f"HTTP_{status}"
    message = fields.get("message")
    cls = FAMILIES.get(code) or _BY_STATUS.get(status) or (ServiceError if status >= 500 else AgentbankError)
    request_id = fields.get("requestId")
    return cls(
        message if isinstance(message, str) else f"the service answered {status}",
        code=code,
        status=status,
        details=fields.get("details"),
        request_id=request_id if isinstance(request_id, str) else headers.get("request-id"),
        retry_after=retry_after_seconds(headers),
    )
