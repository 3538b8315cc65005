// Freezing and unfreezing an agent: the owner's brake and the operator's (agents/freeze.ts), each put on
// and lifted by its own party, told to the agent and to its owner in the same transaction. The one write
// op of a freeze: the routes (owner, operator) and the console all call it.
import { freezeView, setBrake, type Brake } from "../agents/freeze";
import { clock } from "../clock";
import { tellOwner } from "../notices/owner";
import { notifyFinancial } from "../webhooks/outbox";
import { type AgentId } from "../ids";

const BY: Record<Brake, string> = { owner: "your owner", operator: "the operator" };

/**
 * A write op: `brake` on (`frozen`) or off, with the reason recorded. Idempotent: a brake that already is
 * so changes nothing (`changed: false`, nothing recorded, nobody told). Answers the brakes in force.
 */
export function* setFrozen(agentId: AgentId, brake: Brake, frozen: boolean, reason: string | null) {
  const changed = yield* setBrake(agentId, brake, frozen, reason);
  if (changed) {
    const summary = frozen
      ? `Frozen by ${BY[brake]}: nothing you start moves money until you are unfrozen (what you are paid is still credited)`
      : `Unfrozen by ${BY[brake]}`;
    yield* notifyFinancial(agentId, frozen ? "agent.frozen" : "agent.unfrozen", { by: brake }, summary);
    const who = brake === "owner" ? "you" : "the operator";
    yield* tellOwner({
      kind: "agent.frozen",
      agentId,
      event: `agent.${frozen ? "frozen" : "unfrozen"}:${agentId}:${clock.nowMs()}`,
      subject: frozen ? `Your agent was frozen by ${who}` : `Your agent was unfrozen by ${who}`,
      text: frozen
        ? `frozen by ${who}${reason ? ` (“${reason}”)` : ""}: nothing it starts moves money until it is unfrozen; what it is paid is still credited.`
        : `unfrozen by ${who}: it may move money again${brake === "owner" ? "" : ", unless you froze it too"}.`,
      link: "/console",
      data: { frozen, by: brake, reason },
    });
  }
  return { ...(yield* freezeView(agentId)), changed };
}
