"""The client's tests talk to a real agentbank: one service per test session, started by the package's own
harness (agentbank.testing: a fresh SQLite database, the test clock, an operator key, owner keys at
registration) with webhooks allowed to loopback. From a checkout it runs `bun run src/main.ts` unless
AGENTBANK_BIN names an executable (CI: the wheel's). Each test registers its own agents."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from agentbank import Agentbank, AsyncAgentbank
from agentbank.testing import Harness, start_agentbank

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Service:
    url: str
    admin_key: str
    harness: Harness

    def admin(self) -> Agentbank:
        return Agentbank(self.url, self.admin_key)


@dataclass
class Agent:
    id: str
    api_key: str
    owner_key: str
    client: Agentbank
    url: str

    def owner(self) -> Agentbank:
        return Agentbank(self.url, self.owner_key)

    def async_client(self) -> AsyncAgentbank:
        return AsyncAgentbank(self.url, self.api_key)


@contextmanager
def engine() -> Iterator[dict[str, str]]:
    """SQLite in the harness's folder; with TEST_DATABASE_URL (as the TypeScript suite takes it), a fresh
    PostgreSQL database on that server, dropped afterwards."""
    server = os.environ.get("TEST_DATABASE_URL")
    if not server:
        yield {}
        return
    name = f"agentbank_py_{uuid.uuid4().hex}"
    subprocess.run(["psql", server, "-qc", f'CREATE DATABASE "{name}"'], check=True)
    try:
        # The well-known test mnemonic (test/chain/anvil.ts): PostgreSQL keeps no generated one.
        yield {"DATABASE_URL": server.rsplit("/", 1)[0] + "/" + name, "MASTER_MNEMONIC": " ".join(["test"] * 11 + ["junk"])}
    finally:
        subprocess.run(["psql", server, "-qc", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], check=True)


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    from_checkout = not os.environ.get("AGENTBANK_BIN") and shutil.which("bun") and (ROOT / "src/main.ts").is_file()
    command = ["bun", "run", str(ROOT / "src/main.ts")] if from_checkout else None
    with engine() as database, start_agentbank(env={"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true", **database}, command=command, start_timeout=30) as harness:
        yield Service(harness.url.rstrip("/"), harness.admin_key, harness)


@pytest.fixture
def register(service: Service) -> Iterator[object]:
    """register(name, funds=None) -> Agent: a new agent (its owner key too), funded by an operator deposit."""
    made: list[Agentbank] = []

    def make(name: str = "agent", funds: Decimal | str | int | None = None) -> Agent:
        registered = service.harness.register(name)
        agent = Agent(registered.id, registered.api_key, registered.owner_key, Agentbank(service.url, registered.api_key), service.url)
        made.append(agent.client)
        if funds is not None:
            service.harness.fund(agent.id, funds)
        return agent

    yield make
    for client in made:
        client.close()


def ledger_ok(service: Service) -> None:
    """The operator's ledger check: every scenario that moves money ends with it."""
    check = service.harness.ledger_check()
    assert check["ok"] is True, check
