// Reading what an agent was told, and blocking, through the API.
import type { Agent, TestServer } from "./server";

/** The data of every notification.financial the agent received whose kind starts with `kindPrefix`, oldest first. */
export async function financialNotifications(server: TestServer, agent: Agent, kindPrefix = ""): Promise<Record<string, any>[]> {
  const inbox = (await server.request("GET", "/messages/inbox?type=notification.financial&limit=100", { key: agent.apiKey })).body;
  return inbox.data
    .map((message: { metadata: Record<string, any> }) => message.metadata)
    .filter((data: Record<string, any>) => String(data.kind).startsWith(kindPrefix))
    .reverse();
}

/** `blocker` blocks `blocked`. */
export async function block(server: TestServer, blocker: Agent, blocked: Agent): Promise<void> {
  const reply = await server.request("POST", "/agents/me/block", { key: blocker.apiKey, body: { agentId: blocked.id } });
  if (reply.status !== 200) throw new Error(`block failed: ${reply.status}`);
}
