"""agentbank: the Python client, pytest harness and service for agentbank."""
