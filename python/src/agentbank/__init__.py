"""agentbank: the Python client, pytest harness and service for agentbank.

    from agentbank import Agentbank, AwaitingApproval
    bank = Agentbank()                    # AGENTBANK_URL, AGENTBANK_API_KEY
    paid = bank.payments.send(to_agent_id=bob, amount="12.50", currency="USDC")
"""

from ._async_client import AsyncAgentbank
from ._client import Agentbank
from ._core import NOT_GIVEN, Amount, NotGiven
from ._generated import models
from ._generated.models import AwaitingApproval, Error, Pagination
from ._retry import RetryPolicy
from .errors import (
    AgentbankConnectionError,
    AgentbankError,
    AuthenticationError,
    ConflictError,
    InsufficientBalanceError,
    InvalidRequestError,
    LimitExceededError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServiceError,
)

__all__ = [
    "NOT_GIVEN",
    "AgentbankConnectionError",
    "AgentbankError",
    "Agentbank",
    "Amount",
    "AsyncAgentbank",
    "AuthenticationError",
    "AwaitingApproval",
    "ConflictError",
    "Error",
    "InsufficientBalanceError",
    "InvalidRequestError",
    "LimitExceededError",
    "NotFoundError",
    "NotGiven",
    "Pagination",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServiceError",
    "models",
]
