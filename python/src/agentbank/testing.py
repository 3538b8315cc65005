"""A real agentbank for your own tests, as `agentbank/testing` is for `bun test`.

`start_agentbank()` runs the service's executable (see `agentbank._bin.find_binary`) as a child process on
a fresh SQLite database in a temporary folder, with the test clock, an operator key and generous rate
limits, on a free port, and gives back a `Harness`: its URL and the helpers a test needs (register agents,
fund them as the operator, move the clock, check the ledger, stop). Nothing is mocked. The pytest plugin
(`agentbank.pytest_plugin`) hands these out as the fixtures `agentbank` and `agentbank_session`.
"""

from __future__ import annotations

import json as jsonlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import uuid
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import httpx

from agentbank._bin import find_binary
from agentbank._core import Amount, to_decimal

if TYPE_CHECKING:
    from agentbank import Agentbank

_LISTENING = re.compile(r"listening on (http://\S+)")


class AgentbankStartError(RuntimeError):
    """The service did not start; the message holds everything it printed."""


class HarnessRequestError(AssertionError):
    """A harness helper's call was refused; the message holds the status and the answer."""


class RegisteredAgent:
    """An agent registered through the harness: its id, its API key, its owner's key."""

    def __init__(self, harness: Harness, registration: dict[str, Any]) -> None:
        self._harness = harness
        self.registration = registration
        self.id: str = registration["agent"]["id"]
        self.api_key: str = registration["apiKey"]
        self.owner_key: str = registration["ownerKey"]

    @cached_property
    def client(self) -> Agentbank:
        """The typed client, authenticated as this agent."""
        from agentbank import Agentbank

        return Agentbank(base_url=self._harness.url, api_key=self.api_key)

    def __repr__(self) -> str:
        return f"RegisteredAgent(id={self.id!r})"


class Harness:
    """One running service. Start it with `start_agentbank()`; `close()` stops it and deletes its folder."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        command: list[str] | None = None,
        start_timeout: float = 15.0,
    ) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="agentbank-"))
        self.database_path = str(self._dir / "agentbank.db")
        self.admin_key: str = (env or {}).get("ADMIN_API_KEY") or f"admin-{uuid.uuid4()}"
        self._extra_env = dict(env or {})
        self._command = command or [find_binary()]
        self._start_timeout = start_timeout
        self._process: subprocess.Popen[bytes] | None = None
        self._readers: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._listening = threading.Event()
        self._agents: list[RegisteredAgent] = []
        #: Everything the service printed (one JSON object per line), complete once stop() returned.
        self.logs: list[str] = []
        self.url = ""
        self._http = httpx.Client(timeout=30.0)
        try:
            self._boot()
        except BaseException:
            self.close()
            raise

    # -- the process ---------------------------------------------------------------------------------

    def _environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "PORT": "0",
            "HOST": "127.0.0.1",
            "DATABASE_PATH": self.database_path,
            "TEST_CLOCK": "true",
            "RATE_LIMIT_DEFAULT": "100000",
            "RATE_LIMIT_PUBLIC": "100000",
            # As in agentbank dev: register() hands each agent's owner key to the test.
            "OWNER_KEY_AT_REGISTRATION": "true",
            **self._extra_env,
            "ADMIN_API_KEY": self.admin_key,
        }

    def _read(self, stream: Any) -> None:
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace")
            with self._lock:
                self.logs.append(line)
            match = _LISTENING.search(line)
            if match and not self._listening.is_set():
                self.url = match.group(1)
                self._listening.set()
        stream.close()

    def _output(self) -> str:
        with self._lock:
            return "".join(self.logs)

    def _boot(self) -> None:
        self._listening.clear()
        process = subprocess.Popen(
            self._command,
            cwd=self._dir,
            env=self._environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._process = process
        self._readers = [
            threading.Thread(target=self._read, args=(stream,), daemon=True) for stream in (process.stdout, process.stderr)
        ]
        for reader in self._readers:
            reader.start()
        waited = 0.0
        while not self._listening.wait(0.05):
            waited += 0.05
            if process.poll() is not None:
                for reader in self._readers:
                    reader.join(5)
                raise AgentbankStartError(f"agentbank exited with {process.returncode}:\n{self._output()}")
            if waited >= self._start_timeout:
                self.stop(kill=True)
                raise AgentbankStartError(f"agentbank did not start within {self._start_timeout} s:\n{self._output()}")

    def stop(self, *, kill: bool = False) -> None:
        """Stops the service (SIGTERM drains and answers what is in flight; kill=True for crash tests)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            if kill:
                process.kill()
            elif sys.platform == "win32":
                process.terminate()
            else:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for reader in self._readers:
            reader.join(5)

    def restart(self, *, kill: bool = False) -> None:
        """Stops it and starts it again on the same database."""
        self.stop(kill=kill)
        with self._lock:
            self.logs.clear()
        self._boot()

    def close(self) -> None:
        """Stops it, closes the agents' clients and deletes its folder."""
        self.stop()
        self._http.close()
        for agent in self._agents:
            if "client" in agent.__dict__:  # made (cached_property) only when a test used it
                agent.client.close()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- HTTP ----------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        key: str | None = None,
        json: Any = None,
        content: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """One HTTP call to the service; `key` goes as the bearer token, `json` as the body."""
        sent = dict(headers or {})
        if key is not None:
            sent["authorization"] = f"Bearer {key}"
        if content is not None:
            sent.setdefault("content-type", "application/json")
        return self._http.request(method, self.url + path, headers=sent, json=json, content=content)

    def admin(self, method: str, path: str, json: Any = None) -> httpx.Response:
        """One call with the operator key."""
        return self.request(method, path, key=self.admin_key, json=json)

    @staticmethod
    def _expect(response: httpx.Response, status: int, what: str) -> Any:
        if response.status_code != status:
            raise HarnessRequestError(f"{what} failed: {response.status_code} {response.text}")
        return response.json()

    # -- what a test does ----------------------------------------------------------------------------

    def register(self, name: str | None = None, **fields: Any) -> RegisteredAgent:
        """Registers an agent (owner name and e-mail made up unless given); returns its id and keys."""
        number = len(self._agents) + 1
        body = {"name": name or f"agent-{number}", "ownerName": "Owner", "ownerEmail": f"owner{number}@example.com", **fields}
        registration = self._expect(self.request("POST", "/agents/register", json=body), 201, "register")
        agent = RegisteredAgent(self, registration)
        self._agents.append(agent)
        return agent

    def fund(self, agent_id: str, amount: Amount, currency: str = "USDC") -> None:
        """Credits an agent as the operator (POST /admin/deposits); `amount` in major units."""
        content = f'{{"agentId":{jsonlib.dumps(agent_id)},"amount":{format(to_decimal(amount), "f")},"currency":{jsonlib.dumps(currency)}}}'
        response = self.request("POST", "/admin/deposits", key=self.admin_key, content=content)
        self._expect(response, 201, "deposit")

    def balance(self, agent: RegisteredAgent, currency: str = "USDC") -> dict[str, Decimal]:
        """{"available": …, "held": …} of one currency, in major units."""
        body = self._expect(self.request("GET", "/wallets/balance", key=agent.api_key), 200, "balance")
        for row in body["balances"]:
            if row["currency"] == currency:
                return {"available": Decimal(str(row["available"])), "held": Decimal(str(row["held"]))}
        return {"available": Decimal(0), "held": Decimal(0)}

    def advance_clock(self, seconds: int | float) -> str:
        """Moves the service's clock forward and runs every job that came due; returns the new time."""
        return str(self._expect(self.admin("POST", "/admin/clock/advance", {"seconds": seconds}), 200, "clock advance")["now"])

    def ledger_check(self) -> dict[str, Any]:
        """GET /admin/ledger/check: `ok` is true when every invariant (and the chain, if any) holds."""
        body: dict[str, Any] = self.admin("GET", "/admin/ledger/check").json()
        return body


def start_agentbank(
    *, env: Mapping[str, str] | None = None, command: list[str] | None = None, start_timeout: float = 15.0
) -> Harness:
    """Starts a fresh service; `env` adds to its environment, `command` replaces the executable."""
    return Harness(env=env, command=command, start_timeout=start_timeout)
