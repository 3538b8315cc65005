"""The asynchronous client: `AsyncAgentbank(base_url=None, api_key=None)`, the same methods as
`Agentbank` (python/README.md "Reference"), each a coroutine; lists' `.iter()` are async iterators."""

from __future__ import annotations

import asyncio
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
from ._generated.resources import AsyncResources
from ._retry import Attempts, RetryPolicy


class AsyncClientCore:
    """Sends one operation: builds the request once, sends it until an answer or the retries run out."""

    def __init__(self, http: httpx.AsyncClient, retry: RetryPolicy) -> None:
        self.http = http
        self.retry = retry

    async def call(
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
                response = await self.http.send(request)
            except httpx.TransportError as error:
                wait = attempts.after_failure(error)
                if wait is None:
                    raise connection_error(spec, error) from error
                await asyncio.sleep(wait)
                continue
            wait = attempts.after_answer(response)
            if wait is None:
                return parse_answer(spec, response)
            await response.aclose()
            await asyncio.sleep(wait)


class AsyncAgentbank(AsyncResources):
    """agentbank's client. `base_url` and `api_key` default to AGENTBANK_URL and AGENTBANK_API_KEY.

        bank = AsyncAgentbank()
        paid = await bank.payments.send(to_agent_id=bob, amount="12.50", currency="USDC")
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
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._http = http_client or httpx.AsyncClient()
        self.base_url = configure(self._http, base_url, api_key, timeout)
        super().__init__(AsyncClientCore(self._http, retry or RetryPolicy(max_retries=max_retries)))

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncAgentbank:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        await self.aclose()
