// Chainlink-style price feeds (AggregatorV3Interface), read for ORACLE_NET bets.
import { parseAbi } from "viem";
import { publicClient } from "./client";

const aggregatorAbi = parseAbi([
  "function decimals() view returns (uint8)",
  "function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);

export async function readFeed(feed: `0x${string}`): Promise<{ answer: bigint; decimals: number; updatedAt: number }> {
  const client = publicClient();
  const [decimals, round] = await Promise.all([
    client.readContract({ address: feed, abi: aggregatorAbi, functionName: "decimals" }),
    client.readContract({ address: feed, abi: aggregatorAbi, functionName: "latestRoundData" }),
  ]);
  return { answer: round[1], decimals, updatedAt: Number(round[3]) };
}
