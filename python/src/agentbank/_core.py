"""What the sync and async clients share: an operation's description, and turning arguments into a
request and an answer into a model. Money is Decimal end to end: amounts go out as exact JSON numbers
and every JSON number that comes back is read as Decimal, never through float."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Final, TypeAlias

import httpx
from pydantic import BaseModel

from .errors import AgentbankConnectionError, AgentbankError, error_from_answer

#: An amount in major units, as the caller has it: never a float (binary fractions are not money).
Amount: TypeAlias = Decimal | str | int


class NotGiven:
    """The default of an optional field that may be sent as null: left out of the body unless given."""

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN: Final = NotGiven()


@dataclass(frozen=True)
class OperationSpec:
    """One operation of the OpenAPI document, as generated into _generated/resources.py."""

    method: str
    path: str
    #: The model of each 2xx answer by status (None: a file, returned as bytes).
    answers: Mapping[int, type[BaseModel] | None]
    body: type[BaseModel] | None
    #: Whether the operation takes an Idempotency-Key (the service's POSTs that move money or create).
    idempotent: bool
    #: The body fields that are amounts.
    amounts: frozenset[str]


def to_decimal(value: object) -> Decimal:
    """An amount as Decimal; a float or a bool is refused (12.1 as a float is not 12.1)."""
    if isinstance(value, bool) or not isinstance(value, (Decimal, str, int)):
        raise TypeError(f"an amount is a Decimal, a str or an int, not {type(value).__name__}: {value!r}")
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None
    if not amount.is_finite():
        raise ValueError(f"an amount is a finite number, not {value!r}")
    return amount


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def request_body(spec: OperationSpec, fields: Mapping[str, Any]) -> bytes | None:
    """The JSON body: fields not given are left out (None stands for "not given" unless the field is required),
    amounts become Decimal, and the body model of the document checks the whole before anything is sent."""
    if spec.body is None:
        return None
    required = {f.alias or name for name, f in spec.body.model_fields.items() if f.is_required()}
    given = {
        key: to_decimal(value) if key in spec.amounts and value is not None else value
        for key, value in fields.items()
        if not isinstance(value, NotGiven) and (value is not None or key in required)
    }
    model = spec.body.model_validate(given)
    return dumps(model.model_dump(mode="python", by_alias=True, exclude_unset=True)).encode()


def query_params(query: Mapping[str, Any] | None) -> dict[str, str]:
    params: dict[str, str] = {}
    for key, value in (query or {}).items():
        if value is None:
            continue
        if isinstance(value, bool):
            params[key] = "true" if value else "false"
        elif isinstance(value, Decimal):
            params[key] = format(to_decimal(value), "f")
        else:
            params[key] = str(value)
    return params


def dumps(value: Any) -> str:
    """Compact JSON in which a Decimal is written digit for digit (json.dumps has no exact number type)."""
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return format(to_decimal(value), "f")
    if isinstance(value, uuid.UUID):
        return json.dumps(str(value))
    if isinstance(value, (datetime, date)):
        return json.dumps(value.isoformat())
    if isinstance(value, BaseModel):
        return dumps(value.model_dump(mode="python", by_alias=True, exclude_unset=True))
    return json.dumps(value, ensure_ascii=False)


def loads(text: str) -> Any:
    """JSON with every number that has a fraction or exponent read as Decimal."""
    return json.loads(text, parse_float=Decimal)


def parse_answer(spec: OperationSpec, response: httpx.Response) -> BaseModel | bytes:
    """The 2xx answer as its documented model (a held outflow as AwaitingApproval), or an error."""
    if response.status_code >= 400:
        raise error_from_answer(response.status_code, response.headers, _json_or_none(response.text))
    if response.status_code not in spec.answers:
        raise AgentbankError(
            f"{spec.method} {spec.path} answered {response.status_code}, which the API document does not list",
            code="UNEXPECTED_ANSWER",
            status=response.status_code,
            request_id=response.headers.get("request-id"),
        )
    model = spec.answers[response.status_code]
    if model is None:
        return response.content
    return model.model_validate(loads(response.text))


def _json_or_none(text: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        return None


DEFAULT_TIMEOUT: Final = httpx.Timeout(30.0, connect=5.0)
USER_AGENT: Final = "agentbank-python"


def configure(http: httpx.Client | httpx.AsyncClient, base_url: str | None, api_key: str | None, timeout: float | httpx.Timeout | None) -> str:
    """Points an httpx client at the service with the key and timeouts; answers the service's address."""
    url = base_url_of(base_url)
    http.base_url = httpx.URL(url)
    http.headers.update(headers_of(api_key))
    http.timeout = httpx.Timeout(timeout) if timeout is not None else DEFAULT_TIMEOUT
    return url


def base_url_of(base_url: str | None) -> str:
    """The service's address: given, or AGENTBANK_URL."""
    url = base_url or os.environ.get("AGENTBANK_URL")
    if not url:
        raise AgentbankError(
            "no service address: pass base_url= or set AGENTBANK_URL (e.g. http://127.0.0.1:3000)",
            code="NO_BASE_URL",
            status=None,
        )
    return url.rstrip("/")


def headers_of(api_key: str | None) -> dict[str, str]:
    """The headers every request carries: the key (given, or AGENTBANK_API_KEY) as the bearer token."""
    key = api_key if api_key is not None else os.environ.get("AGENTBANK_API_KEY")
    headers = {"user-agent": USER_AGENT, "accept": "application/json"}
    if key:
        headers["authorization"] = f"Bearer {key}"
    return headers


def attempt_headers(spec: OperationSpec, body: bytes | None, idempotency_key: str | None) -> dict[str, str]:
    """The headers of one call, the same on each of its attempts (the Idempotency-Key made once per call)."""
    headers = {"content-type": "application/json"} if body is not None else {}
    if spec.idempotent:
        headers["idempotency-key"] = idempotency_key or new_idempotency_key()
    return headers


def build_request(
    http: httpx.Client | httpx.AsyncClient,
    spec: OperationSpec,
    path: str,
    query: Mapping[str, Any] | None,
    body: Mapping[str, Any] | None,
    idempotency_key: str | None,
    timeout: float | None,
) -> httpx.Request:
    """The one request of a call, sent as it is on every attempt."""
    content = request_body(spec, body or {})
    return http.build_request(
        spec.method,
        path,
        params=query_params(query),
        content=content,
        headers=attempt_headers(spec, content, idempotency_key),
        timeout=timeout if timeout is not None else http.timeout,
    )


def connection_error(spec: OperationSpec, error: httpx.TransportError) -> AgentbankError:
    return AgentbankConnectionError(
        f"{spec.method} {spec.path}: no answer from the service ({type(error).__name__}: {error})",
        code="CONNECTION_ERROR",
        status=None,
    )
