"""The client's tests talk to a real agentbank: one service per test session, started from this checkout
(`bun run src/main.ts`) on a fresh SQLite database in a temporary folder, with the environment the
TypeScript harness uses (src/testing.ts): the test clock, an operator key, owner keys at registration,
rate limits out of the way, and webhooks allowed to loopback. Each test registers its own agents."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from agentbank import Agentbank, AsyncAgentbank

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Service:
    url: str
    admin_key: str

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


@pytest.fixture(scope="session")
def service() -> Iterator[Service]:
    admin_key = f"admin-{uuid.uuid4()}"
    with tempfile.TemporaryDirectory(prefix="agentbank-py-") as folder:
        env = {
            **os.environ,
            "PORT": "0",
            "HOST": "127.0.0.1",
            "DATABASE_PATH": str(Path(folder) / "agentbank.db"),
            "TEST_CLOCK": "true",
            "RATE_LIMIT_DEFAULT": "100000",
            "RATE_LIMIT_PUBLIC": "100000",
            "OWNER_KEY_AT_REGISTRATION": "true",
            "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
            "ADMIN_API_KEY": admin_key,
        }
        child = subprocess.Popen(
            ["bun", "run", str(ROOT / "src/main.ts")],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        logs: list[str] = []
        listening = threading.Event()
        found: list[str] = []

        def drain() -> None:
            assert child.stdout is not None
            for line in child.stdout:
                logs.append(line)
                match = re.search(r"listening on (http://\S+)", line)
                if match and not found:
                    found.append(match.group(1))
                    listening.set()
            listening.set()

        threading.Thread(target=drain, daemon=True).start()
        try:
            if not listening.wait(30) or not found:
                raise RuntimeError("agentbank did not start:\n" + "".join(logs))
            yield Service(found[0].rstrip("/"), admin_key)
        finally:
            child.terminate()
            child.wait(10)


@pytest.fixture
def register(service: Service) -> Iterator[object]:
    """register(name, funds=None) -> Agent: a new agent (its owner key too), funded by an operator deposit."""
    made: list[Agentbank] = []

    def make(name: str = "agent", funds: Decimal | str | int | None = None) -> Agent:
        public = Agentbank(service.url, "")
        made.append(public)
        answer = public.agents.register(name=name, owner_name="Owner", owner_email=f"{uuid.uuid4().hex[:12]}@example.com")
        assert answer.owner_key is not None
        client = Agentbank(service.url, answer.api_key)
        made.append(client)
        agent = Agent(str(answer.agent.id), answer.api_key, answer.owner_key, client, service.url)
        if funds is not None:
            with service.admin() as admin:
                admin.admin.deposits(agent_id=agent.id, amount=funds, currency="USDC")
        return agent

    yield make
    for client in made:
        client.close()


def ledger_ok(service: Service) -> None:
    """The operator's ledger check: every scenario that moves money ends with it."""
    with service.admin() as admin:
        check = admin.admin.ledger_check()
    assert check.ok, check
