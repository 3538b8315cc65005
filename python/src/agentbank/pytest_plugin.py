"""The pytest plugin (entry point pytest11): fixtures that start a real agentbank.

- `agentbank`: per test, a fresh service on a fresh database.
- `agentbank_session`: one service for the whole session (tests share its database: register agents of
  your own in each test).

Each is an `agentbank.testing.Harness` (`.url`, `.admin_key`, `.register(name)`, `.fund(...)`,
`.advance_clock(seconds)`, `.ledger_check()`, …), stopped and its folder deleted when it goes out of scope.
The service's executable is found as the `agentbank` command finds it (AGENTBANK_BIN, the wheel's own,
`agentbank` on PATH).
"""

from __future__ import annotations

from typing import Iterator

import pytest

from agentbank.testing import Harness, start_agentbank


@pytest.fixture(scope="session")
def agentbank_session() -> Iterator[Harness]:
    """One agentbank for the whole test session."""
    with start_agentbank() as harness:
        yield harness


@pytest.fixture
def agentbank() -> Iterator[Harness]:
    """A fresh agentbank (its own database) for one test."""
    with start_agentbank() as harness:
        yield harness
