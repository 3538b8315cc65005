"""The synchronous client: `Agentbank(base_url=None, api_key=None)`, every operation of the API as a method
(grouped by the first path segment, see python/README.md "Reference"), with retries and idempotency keys."""

from __future__ import annotations

import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import httpx
from pydantic import BaseModel

from ._core import (
    OperationSpec,
    build_request,
    configure,
    connection_error,
    parse_answer,
)
from ._generated.resources import SyncResources
from ._retry import Attempts, RetryPolicy


class ClientCore:
    """Sends one operation: builds the request once, sends it until an answer or the retries run out."""

    def __init__(self, http: httpx.Client, retry: RetryPolicy) -> None:
        self.http = http
        self.retry = retry

    def call(
        self,
        spec: OperationSpec,
        path: str,
        *,
        query: Mapping[str, Any] | None,
        body: Mapping[str, Any] | None,
        idempotency_key: str | None,
        timeout: float | None,
    ) -> BaseModel | bytes:
        request = build_request(self.http, spec, path, query, body, idempotency_key, timeout)
        attempts = Attempts(self.retry, spec)
        while True:
            try:
                response = self.http.send(request)
            except httpx.TransportError as error:
                wait = attempts.after_failure(error)
                if wait is None:
                    raise connection_error(spec, error) from error
                time.sleep(wait)
                continue
            wait = attempts.after_answer(response)
            if wait is None:
                return parse_answer(spec, response)
            response.close()
            time.sleep(wait)


class Agentbank(SyncResources):
    """agentbank's client. `base_url` and `api_key` default to AGENTBANK_URL and AGENTBANK_API_KEY.

        bank = Agentbank()
        paid = bank.payments.send(to_agent_id=bob, amount="12.50", currency="USDC")
        if isinstance(paid, AwaitingApproval): ...   # held for the owner: nothing paid yet
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = 2,
        retry: RetryPolicy | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._http = http_client or httpx.Client()
        self.base_url = configure(self._http, base_url, api_key, timeout)
        super().__init__(ClientCore(self._http, retry or RetryPolicy(max_retries=max_retries)))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Agentbank:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()
