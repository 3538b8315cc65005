"""The client's rules that need no service: when a call is sent again, and how amounts are written."""

from __future__ import annotations

from decimal import Decimal

import httpx
import pytest

from agentbank._core import dumps, query_params, to_decimal
from agentbank._generated.resources import OPERATIONS
from agentbank._retry import Attempts, RetryPolicy

NO_WAIT = RetryPolicy(max_retries=2, backoff=0.0)


def answer(status: int, retry_after: str | None = None) -> httpx.Response:
    return httpx.Response(status, headers={"retry-after": retry_after} if retry_after else {})


def failure(kind: type[httpx.TransportError]) -> httpx.TransportError:
    return kind("boom", request=httpx.Request("POST", "http://x/"))


@pytest.mark.parametrize("operation", ["payments.send", "wallets.balance", "owner.set_policy"])
def test_repeatable_calls_are_sent_again_after_any_failure_and_5xx(operation: str) -> None:
    attempts = Attempts(NO_WAIT, OPERATIONS[operation])
    assert attempts.after_failure(failure(httpx.ReadError)) == 0.0
    assert attempts.after_answer(answer(500)) == 0.0
    assert attempts.after_answer(answer(502)) is None  # the retries are used up


@pytest.mark.parametrize("operation", ["agents.register", "admin.deposits", "owner.approvals_approve", "lending.delete_offers"])
def test_other_writes_are_sent_again_only_when_the_service_surely_did_nothing(operation: str) -> None:
    spec = OPERATIONS[operation]
    assert Attempts(NO_WAIT, spec).after_failure(failure(httpx.ReadError)) is None
    assert Attempts(NO_WAIT, spec).after_failure(failure(httpx.ReadTimeout)) is None
    assert Attempts(NO_WAIT, spec).after_answer(answer(500)) is None
    assert Attempts(NO_WAIT, spec).after_answer(answer(504)) is None
    assert Attempts(NO_WAIT, spec).after_failure(failure(httpx.ConnectError)) == 0.0
    assert Attempts(NO_WAIT, spec).after_answer(answer(503)) == 0.0
    assert Attempts(NO_WAIT, spec).after_answer(answer(429, "2")) == 2.0


def test_retry_after_is_honoured_up_to_the_policy_s_longest_wait() -> None:
    spec = OPERATIONS["wallets.balance"]
    assert Attempts(NO_WAIT, spec).after_answer(answer(429, "60")) == 60.0
    assert Attempts(NO_WAIT, spec).after_answer(answer(429, "61")) is None
    assert Attempts(NO_WAIT, spec).after_answer(answer(400)) is None
    date = Attempts(NO_WAIT, spec).after_answer(answer(503, "Wed, 21 Oct 2015 07:28:00 GMT"))
    assert date == 0.0  # a date in the past: at once


def test_the_back_off_doubles_and_is_capped() -> None:
    attempts = Attempts(RetryPolicy(max_retries=10, backoff=1.0, max_backoff=4.0), OPERATIONS["wallets.balance"])
    waits = [attempts.after_answer(answer(500)) for _ in range(5)]
    assert all(w is not None for w in waits)
    assert [0.5 <= w / cap <= 1.0 for w, cap in zip(waits, [1, 2, 4, 4, 4])] == [True] * 5  # type: ignore[operator]


def test_amounts_are_written_digit_for_digit() -> None:
    assert dumps({"amount": Decimal("0.1"), "n": [Decimal("1E+3"), 2, "x"]}) == '{"amount":0.1,"n":[1000,2,"x"]}'
    assert dumps({"amount": to_decimal("123456789.123456")}) == '{"amount":123456789.123456}'
    assert query_params({"minPrice": Decimal("1E+2"), "unreadOnly": True, "after": None}) == {"minPrice": "100", "unreadOnly": "true"}
    for refused in (0.1, True, None, "NaN", "Infinity", "12,50"):
        with pytest.raises((TypeError, ValueError)):
            to_decimal(refused)
