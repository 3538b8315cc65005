import { Elysia } from "elysia";
import { door } from "../../door";
import { docs, paged, PageQuery } from "../../http/models";
import { answers } from "../../http/responses";
import { listDiscovered } from "./discovery";
import { DiscoveredResourcePage, FacilitatorRequestBody, SettleAnswer, SupportedAnswer, VerifyAnswer, type FacilitatorRequest } from "./model";
import { settle } from "./service";
import { supported, verify } from "./verify";

const SELLER = "The calling agent is the seller: payTo must be its own deposit address.";

export const facilitatorRoutes = new Elysia({ prefix: "/x402/facilitator", name: "x402-facilitator" })
  .use(door)
  .get("/supported", () => supported(), {
    agent: true,
    ...answers(docs("x402", "x402 v2 facilitator: what it settles (exact and upto, USDC, the configured network; upto's extra.facilitatorAddress)", "agent", ["CHAIN_UNAVAILABLE"]), { 200: SupportedAnswer }),
  })
  .post("/verify", ({ agent, body }) => verify(agent.id, body as FacilitatorRequest), {
    agent: true,
    body: FacilitatorRequestBody,
    ...answers(
      docs("x402", `x402 v2 facilitator: verify a buyer's payment, exact (EIP-3009) or upto (Permit2): the scheme and network first (unsupported_scheme, invalid_network), then the payload, signature, amount, time window, nonce unused, balance. ${SELLER}`, "agent", ["CHAIN_UNAVAILABLE"]),
      { 200: VerifyAnswer },
    ),
  })
  .post("/settle", ({ agent, key, body }) => settle(agent.id, body as FacilitatorRequest, key?.id ?? null), {
    agent: true,
    body: FacilitatorRequestBody,
    ...answers(
      docs(
        "x402",
        `x402 v2 facilitator: submit the buyer's transferWithAuthorization (exact) or Permit2 permit through the upto proxy for the amount asked (upto) from the treasury (the operator pays the gas). A second settle of the same payment, or of the same payment-identifier id, answers the first one's outcome; another payment under that id is refused. ${SELLER}`,
        "agent",
        ["CHAIN_UNAVAILABLE"],
      ),
      { 200: SettleAnswer },
    ),
  })
  .get("/discovery/resources", ({ query, read }) => paged(query, (window) => read(listDiscovered(window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("x402", "Resources sold through the facilitator that carry the bazaar extension, newest first: each entry is the seller's own words (descriptionTrust: untrusted)", "agent"), { 200: DiscoveredResourcePage }),
  });
