// Compiles the test contracts (TestTokens.sol; X402Permit2Proxies.sol and BatchSettlement.sol, the stand-ins
// of x402's contracts) with solc-js into contracts.json (committed, so tests do not compile).
// Run: bun run test/chain/compile.ts
import solc from "solc";
import { join } from "node:path";

const files = ["TestTokens.sol", "X402Permit2Proxies.sol", "BatchSettlement.sol"];
const sources: Record<string, { content: string }> = {};
for (const file of files) sources[file] = { content: await Bun.file(join(import.meta.dir, file)).text() };
const input = {
  language: "Solidity",
  sources,
  settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
};
const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((error: { severity: string }) => error.severity === "error");
if (errors.length > 0) throw new Error(errors.map((error: { formattedMessage: string }) => error.formattedMessage).join("\n"));
const contracts: Record<string, { abi: unknown; bytecode: string }> = {};
for (const file of files) {
  for (const [name, contract] of Object.entries(output.contracts[file] as Record<string, { abi: unknown; evm: { bytecode: { object: string } } }>)) {
    // Abstract contracts and interfaces have no bytecode: nothing to deploy.
    if (contract.evm.bytecode.object === "") continue;
    contracts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
}
await Bun.write(join(import.meta.dir, "contracts.json"), `${JSON.stringify(contracts, null, 1)}\n`);
console.log(`compiled ${Object.keys(contracts).join(", ")} with solc ${solc.version()}`);
