"""agentbank's tools in a LangChain agent, through langchain-mcp-adapters (tested with the versions in
requirements-recipes.txt).

The agent gets a restricted key (`pp_r_…`, scopes read + pay, a budget) rather than its own API key, and
loads the tools from the service's Streamable-HTTP MCP endpoint `/mcp`: it sees only what the key's scopes
open (the read tools and send_payment), and every payment stays within the key's budget.

    AGENTBANK_URL=http://127.0.0.1:3000 AGENTBANK_API_KEY=pp_r_… python langchain_mcp.py <payee agent id> 2.5

With a model, hand the same tools to any LangChain / LangGraph agent, e.g.
`langgraph.prebuilt.create_react_agent(model, tools)`. Here the payment tool is invoked directly, as the
model would invoke it, so the wiring runs without a model.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient


def agentbank_mcp(url: str, key: str) -> MultiServerMCPClient:
    """An MCP client for agentbank's `/mcp`, authenticated with the (restricted) key."""
    return MultiServerMCPClient(
        {
            "agentbank": {
                "transport": "streamable_http",
                "url": f"{url.rstrip('/')}/mcp",
                "headers": {"Authorization": f"Bearer {key}"},
            }
        }
    )


async def load_tools(url: str, key: str) -> list[BaseTool]:
    """agentbank's tools as LangChain tools (those the key's scopes open)."""
    return await agentbank_mcp(url, key).get_tools()


async def pay(url: str, key: str, to_agent_id: str, amount: float, reason: str) -> dict[str, Any]:
    """Calls the send_payment tool as an agent does (a tool call); returns the payment (or the held approval)."""
    tools = {tool.name: tool for tool in await load_tools(url, key)}
    # One idempotency key per payment: a retried tool call never pays twice.
    arguments = {"toAgentId": to_agent_id, "amount": amount, "currency": "USDC", "reason": reason, "idempotencyKey": str(uuid.uuid4())}
    message: ToolMessage = await tools["send_payment"].ainvoke(
        {"type": "tool_call", "id": str(uuid.uuid4()), "name": "send_payment", "args": arguments}
    )
    # The answer's first text block holds the route's JSON answer, or `CODE: message` for a refusal,
    # which a model reads as the tool's error (status "error").
    text = message.content if isinstance(message.content, str) else next(
        block["text"] for block in message.content if isinstance(block, dict) and block.get("type") == "text"
    )
    if message.status == "error":
        raise RuntimeError(text)
    result: dict[str, Any] = json.loads(text)
    return result


if __name__ == "__main__":
    payment = asyncio.run(
        pay(os.environ["AGENTBANK_URL"], os.environ["AGENTBANK_API_KEY"], sys.argv[1], float(sys.argv[2]), "LangChain recipe")
    )
    print(json.dumps(payment, indent=2))
