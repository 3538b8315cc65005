import { type AgentId } from "../ids";
// What an agent's owner is told (issue 33), each kind a line of the console's Notifications page where
// the owner chooses its channels: e-mail (on unless turned off) and the owner's webhook (on once one is
// set). Nothing is opted out silently: a kind with every channel off says so on that page.
export const NOTICE_KINDS = {
  "approval.held": "An outflow waits for your approval",
  "approval.reminder": "An outflow's approval expires within the hour",
  "approval.ended": "An outflow waiting for you expired, or was approved but could not be made",
  "agent.frozen": "The agent was frozen or unfrozen",
  "key.created": "A restricted key or an MCP host's access was made for the agent",
} as const;

export type NoticeKind = keyof typeof NOTICE_KINDS;

/**
 * One thing to tell an owner: `event` is unique per notice and recipient (a second queue of it does
 * nothing), `subject` and `text` read as the console's cards do, `link` is where to act (a console page),
 * `data` the facts in JSON for a webhook.
 */
export type Notice = { kind: NoticeKind; agentId: AgentId; event: string; subject: string; text: string; link: string | null; data: Record<string, unknown> };
