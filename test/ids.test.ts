// Ids of different kinds are different types (src/ids.ts). The lines marked @ts-expect-error must not
// compile: `tsc --noEmit` (the typecheck of .ci/run) fails on a marker with no error under it, so if
// a loan's id or an unchecked string were ever taken where an agent's id is expected, the typecheck
// fails. At run time they are plain strings, which the second test checks.
import { describe, expect, test } from "bun:test";
import { findAgent, type AgentRow } from "../src/agents/service";
import type { Op, Row } from "../src/db";
import type { AgentId, LoanId } from "../src/ids";
import { loans } from "../src/lending/schema";
import { getLoan } from "../src/lending/service";

/** Never run: only type-checked. */
export function* mixedUp(agent: AgentRow, loan: Row<typeof loans>, text: string): Op<void> {
  // @ts-expect-error a loan's id is not an agent's
  yield* findAgent(loan.id);
  // @ts-expect-error an agent's id is not a loan's
  yield* getLoan(agent.id, agent.id);
  // @ts-expect-error a string no schema checked is neither
  yield* findAgent(text);
  // The right kinds compile.
  yield* findAgent(loan.borrowerId);
  yield* getLoan(agent.id, loan.id);
}

describe("ids", () => {
  test("an id's kind exists for the checker only: at run time it is the string the engines store", () => {
    const agentId = "0190f6a0-0000-7000-8000-000000000000" as AgentId;
    const loanId = "loan_x" as LoanId;
    expect(typeof agentId).toBe("string");
    expect(JSON.parse(JSON.stringify({ agentId, loanId }))).toEqual({ agentId: "0190f6a0-0000-7000-8000-000000000000", loanId: "loan_x" });
    expect(typeof mixedUp).toBe("function");
  });
});
