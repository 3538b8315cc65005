import { Elysia } from "elysia";
import { door } from "../../door";
import { docs, IdParam, paged, PageQuery } from "../../http/models";
import { answers } from "../../http/responses";
import { closeChannel } from "./close";
import { listChannels } from "./channels";
import { X402Channel, X402ChannelPage } from "./model";

export const x402ChannelRoutes = new Elysia({ prefix: "/x402", name: "x402-channels" })
  .use(door)
  .get("/channels", ({ agent, query, read }) => paged(query, (window) => read(listChannels(agent.id, window))), {
    agent: true,
    query: PageQuery,
    ...answers(docs("x402", "Your x402 batch-settlement channels, newest first: each one's deposit, what was charged from it, and what is still held", "agent"), {
      200: X402ChannelPage,
    }),
  })
  .post("/channels/:id/close", ({ agent, params }) => closeChannel(agent.id, params.id), {
    agent: true,
    params: IdParam,
    ...answers(
      docs(
        "x402",
        "Close one of your batch-settlement channels: the resource is asked to refund it; once the chain shows it emptied, what the seller claimed is charged and the rest of the deposit returns to your balance. 409 while the deposit could still land or the channel still holds money",
        "agent",
        ["NOT_FOUND", "INVALID_STATE", "CHAIN_UNAVAILABLE"],
      ),
      { 200: X402Channel },
    ),
  });
