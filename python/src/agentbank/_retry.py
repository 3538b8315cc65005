"""When a request is sent again, and after how long (python/README.md, "Retries").

A request is sent again only when doing so cannot do twice what it asks:
- reads (GET), PUTs (they set a state) and the operations that take an Idempotency-Key (every POST that
  moves money or creates: the key is made once per call and sent on every attempt, so the service
  replays the first answer instead of acting again) are retried on any connection failure (refused,
  reset, dropped mid-answer, timed out) and on 429, 500, 502, 503 and 504;
- the other POSTs and DELETEs only when the service surely did nothing: the connection was never made,
  429 (refused before any work) or 503 (SERVICE_BUSY: the transaction was rolled back; CHAIN_UNAVAILABLE).
The wait is the answer's Retry-After when it has one (a wait longer than `max_wait` is not waited for:
the error is raised with its `retry_after`), else an exponential back-off with jitter."""

from __future__ import annotations

import random
from dataclasses import dataclass

import httpx

from ._core import OperationSpec
from .errors import retry_after_seconds

_ALWAYS_RETRIED = frozenset({429, 503})
_RETRIED_WHEN_REPEATABLE = frozenset({500, 502, 504})


@dataclass(frozen=True)
class RetryPolicy:
    #: Attempts after the first.
    max_retries: int = 2
    #: The first back-off, doubled on each retry (with jitter), up to `max_backoff`.
    backoff: float = 0.5
    max_backoff: float = 8.0
    #: The longest Retry-After waited for; a longer one is raised to the caller.
    max_wait: float = 60.0


def repeatable(spec: OperationSpec) -> bool:
    """Whether sending the operation twice does what sending it once does."""
    return spec.method in ("GET", "HEAD", "PUT") or spec.idempotent


class Attempts:
    """The retry decisions of one call: each answers the seconds to wait before the next attempt, or None."""

    def __init__(self, policy: RetryPolicy, spec: OperationSpec) -> None:
        self._policy = policy
        self._repeatable = repeatable(spec)
        self._made = 0

    def _backoff(self) -> float:
        return min(self._policy.max_backoff, self._policy.backoff * 2.0 ** (self._made - 1)) * random.uniform(0.5, 1.0)

    def after_failure(self, error: httpx.TransportError) -> float | None:
        self._made += 1
        never_sent = isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout))
        if self._made > self._policy.max_retries or not (self._repeatable or never_sent):
            return None
        return self._backoff()

    def after_answer(self, response: httpx.Response) -> float | None:
        status = response.status_code
        if status not in _ALWAYS_RETRIED and not (self._repeatable and status in _RETRIED_WHEN_REPEATABLE):
            return None
        self._made += 1
        if self._made > self._policy.max_retries:
            return None
        asked = retry_after_seconds(response.headers)
        if asked is None:
            return self._backoff()
        return asked if asked <= self._policy.max_wait else None
