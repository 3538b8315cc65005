// agentbank/testing imported outside Bun: the harness starts the service, which runs on Bun only.
throw new Error(
  "agentbank/testing starts the agentbank service, which runs on Bun: run your tests with `bun test` (https://bun.sh). The typed client (`agentbank`) works on Node too.",
);
