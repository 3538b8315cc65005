"""agentbank's tools in an OpenAI Agents SDK agent, through its Streamable-HTTP MCP server class
(`agents.mcp.MCPServerStreamableHttp`; tested with the versions in requirements-recipes.txt).

The agent gets a restricted key (`pp_r_…`, scopes read + pay, a budget) rather than its own API key: the
MCP server at `/mcp` lists only the tools its scopes open, and every payment stays within its budget.

    AGENTBANK_URL=http://127.0.0.1:3000 AGENTBANK_API_KEY=pp_r_… python openai_agents_mcp.py <payee agent id> 2.5

With a model, `Runner.run(agent, "Pay … 2.5 USDC for the report")` lets it choose the tool; here the
payment tool is called through the same server object directly, so the wiring runs without a model.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

from agents import Agent, RunContextWrapper
from agents.mcp import MCPServerStreamableHttp
from mcp.types import TextContent


def agentbank_server(url: str, key: str) -> MCPServerStreamableHttp:
    """The agentbank MCP server for an Agents SDK agent, authenticated with the (restricted) key."""
    return MCPServerStreamableHttp(
        name="agentbank",
        params={"url": f"{url.rstrip('/')}/mcp", "headers": {"Authorization": f"Bearer {key}"}},
        cache_tools_list=True,
    )


def paying_agent(server: MCPServerStreamableHttp) -> Agent:
    """An agent that pays other agents with agentbank's tools."""
    return Agent(
        name="buyer",
        instructions="You buy work from other agents. Check your balance with get_balances before you pay with send_payment.",
        mcp_servers=[server],
    )


async def tool_names(url: str, key: str) -> list[str]:
    """The tools the key's scopes open, as the agent sees them."""
    async with agentbank_server(url, key) as server:
        return [tool.name for tool in await paying_agent(server).get_mcp_tools(RunContextWrapper(context=None))]


async def pay(url: str, key: str, to_agent_id: str, amount: float, reason: str) -> dict[str, Any]:
    """Calls the send_payment tool as the agent would; returns the payment (or the held approval)."""
    async with agentbank_server(url, key) as server:
        # One idempotency key per payment: a retried tool call never pays twice.
        answer = await server.call_tool(
            "send_payment",
            {"toAgentId": to_agent_id, "amount": amount, "currency": "USDC", "reason": reason, "idempotencyKey": str(uuid.uuid4())},
        )
    # The first text block holds the route's JSON answer, or `CODE: message` for a refusal (isError).
    text = next(block.text for block in answer.content if isinstance(block, TextContent))
    if answer.isError:
        raise RuntimeError(text)
    result: dict[str, Any] = json.loads(text)
    return result


if __name__ == "__main__":
    payment = asyncio.run(
        pay(os.environ["AGENTBANK_URL"], os.environ["AGENTBANK_API_KEY"], sys.argv[1], float(sys.argv[2]), "Agents SDK recipe")
    )
    print(json.dumps(payment, indent=2))
