"""agentbank as plain Python functions, for agent frameworks without MCP (CrewAI's @tool, Pydantic AI's
tools, Google ADK's FunctionTool, or your own loop): each function has typed arguments and a docstring a
model reads, takes the agent's key (best a restricted key, `pp_r_…`) from the environment or from
`AgentbankTools(url, key)`, and raises `AgentbankToolError("CODE: message")` as the MCP tools answer.

    tools = AgentbankTools()            # AGENTBANK_URL, AGENTBANK_API_KEY
    agent = SomeFramework(tools=tools.functions)
"""

from __future__ import annotations

import os
import uuid
from typing import Any, Callable

import httpx


class AgentbankToolError(RuntimeError):
    """A refused call, as `CODE: message` (the code is the API's, e.g. INSUFFICIENT_BALANCE)."""


class AgentbankTools:
    """The functions an agent needs to pay and to see its money, bound to one key."""

    def __init__(self, url: str | None = None, key: str | None = None) -> None:
        self._http = httpx.Client(
            base_url=(url or os.environ.get("AGENTBANK_URL") or "http://127.0.0.1:3000").rstrip("/"),
            headers={"Authorization": f"Bearer {key or os.environ['AGENTBANK_API_KEY']}"},
            timeout=30.0,
        )

    def _call(self, method: str, path: str, **options: Any) -> Any:
        response = self._http.request(method, path, **options)
        body = response.json()
        if response.status_code >= 400:
            raise AgentbankToolError(f"{body.get('error', response.status_code)}: {body.get('message', response.text)}")
        return body

    def get_balances(self) -> list[dict[str, Any]]:
        """Your balances in every currency: available (spendable) and held (locked in escrow). Check before paying."""
        balances: list[dict[str, Any]] = self._call("GET", "/wallets/balance")["balances"]
        return balances

    def get_history(self, limit: int = 20) -> list[dict[str, Any]]:
        """Movements of your available balance, newest first (payments, deposits, escrow), at most `limit` (1-100)."""
        entries: list[dict[str, Any]] = self._call("GET", "/wallets/history", params={"limit": limit})["data"]
        return entries

    def send_payment(self, to_agent_id: str, amount: float, currency: str = "USDC", reason: str | None = None) -> dict[str, Any]:
        """Pay another agent at once from your available balance, `amount` in major units (e.g. 2.5 USDC).
        Above your owner's approval amount the payment is held: the answer's status is AWAITING_APPROVAL with
        an approvalId (follow it with get_approval) and no money has moved yet."""
        body: dict[str, Any] = {"toAgentId": to_agent_id, "amount": amount, "currency": currency}
        if reason is not None:
            body["reason"] = reason
        # One idempotency key per payment, sent on the call that makes it.
        payment: dict[str, Any] = self._call("POST", "/payments/send", json=body, headers={"Idempotency-Key": str(uuid.uuid4())})
        return payment

    def get_approval(self, approval_id: str) -> dict[str, Any]:
        """A payment of yours held for your owner: PENDING, APPROVED (with what it answered), DECLINED, EXPIRED or FAILED."""
        approval: dict[str, Any] = self._call("GET", f"/approvals/{approval_id}")
        return approval

    @property
    def functions(self) -> list[Callable[..., Any]]:
        """The tool functions, for a framework's tool list."""
        return [self.get_balances, self.get_history, self.send_payment, self.get_approval]

    def close(self) -> None:
        self._http.close()
