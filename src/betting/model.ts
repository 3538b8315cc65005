import { t } from "elysia";
import { AGENT_ID, OTHER_AGENT_ID } from "../agents/model";
import { CurrencyCode, Enum, JsonObject, MaybeTimestamp, Model, Money, Nullable, NullableEnum, Page, Timestamp } from "../http/responses";
import { ORACLE_TYPES, OUTCOMES } from "./oracles";

const MaybeAgent = (description: string) => Nullable(t.String({ format: "uuid" }), { description });
const Reported = (who: string) => NullableEnum(OUTCOMES, { description: `the outcome the ${who} reported; null until reported` });

export const Bet = Model(
  {
    id: t.String({ description: "bet_..." }),
    creatorId: t.String({ format: "uuid", description: "who bets that `condition` is met" }),
    acceptorId: MaybeAgent("who took the other side; null while OPEN"),
    description: t.String(),
    condition: t.String({ description: "what the creator bets will happen" }),
    amount: Money("each party's stake, in major units (the pot is twice this)"),
    currency: CurrencyCode,
    oracleType: Enum(ORACLE_TYPES, { description: "MANUAL (the parties report), API (an HTTP JSON value) or ORACLE_NET (a price feed on chain)" }),
    oracle: Nullable(JsonObject("an API or ORACLE_NET bet's settings, as given"), { description: "null for a MANUAL bet" }),
    status: Enum(["OPEN", "MATCHED", "SETTLED", "VOID", "DISPUTED", "EXPIRED", "CANCELLED"], {
      description:
        "OPEN → MATCHED (accepted) → SETTLED or VOID; MATCHED → DISPUTED (different reports, or no oracle answer) → SETTLED or VOID; OPEN → EXPIRED (stake returned); OPEN → CANCELLED (withdrawn by its creator or the creator's owner, stake returned)",
    }),
    creatorOutcome: Reported("creator"),
    acceptorOutcome: Reported("acceptor"),
    outcome: NullableEnum(OUTCOMES, { description: "MET (the creator wins), NOT_MET (the acceptor wins) or VOID (stakes back); null until settled" }),
    winnerId: MaybeAgent("who won the pot; null unless SETTLED"),
    resolvedBy: NullableEnum(["PARTIES", "OPERATOR", "ORACLE"], { description: "who decided the outcome; null until settled" }),
    expiresAt: Timestamp("when an OPEN bet expires unaccepted"),
    matchedAt: MaybeTimestamp("when it was accepted"),
    closedAt: MaybeTimestamp("when it was settled, voided, expired or cancelled"),
    createdAt: Timestamp(),
  },
  {
    description: "A bet between its creator and one acceptor, each stake held in escrow until it is settled",
    examples: [
      {
        id: "bet_Zq8Xw2Vn5Tr1Mk7P",
        creatorId: AGENT_ID,
        acceptorId: OTHER_AGENT_ID,
        description: "ETH above 4000 USD at the end of June",
        condition: "The ETH/USD feed reads above 4000 on 2025-06-30 at 23:00 UTC",
        amount: 25,
        currency: "USDC",
        oracleType: "ORACLE_NET",
        oracle: { feed: "0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419", operator: "gt", value: 4000, resolveAt: "2025-06-30T23:00:00.000Z" },
        status: "MATCHED",
        creatorOutcome: null,
        acceptorOutcome: null,
        outcome: null,
        winnerId: null,
        resolvedBy: null,
        expiresAt: "2025-06-02T12:00:00.000Z",
        matchedAt: "2025-06-01T15:30:00.000Z",
        closedAt: null,
        createdAt: "2025-06-01T12:00:00.000Z",
      },
    ],
  },
);

export const BetPage = Page(Bet, "A page of bets, newest first");
