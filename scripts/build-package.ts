// What the npm package ships besides the server's source (run before `npm pack`): the typed client as
// JavaScript for Node and Bun (dist/client/index.js, openapi-fetch left as a dependency) and the
// declarations of both entries (dist/client/*.d.ts, dist/testing.d.ts), which need neither Bun's types
// nor the server's source in the consumer's type check.
import { rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
rmSync(join(root, "dist/client"), { recursive: true, force: true });
rmSync(join(root, "dist/testing.d.ts"), { force: true });

const client = await Bun.build({
  entrypoints: [join(root, "src/client/index.ts")],
  outdir: join(root, "dist/client"),
  target: "node",
  format: "esm",
  packages: "external",
});
if (!client.success) throw new AggregateError(client.logs, "building the client failed");

const declarations = Bun.spawnSync([join(root, "node_modules/.bin/tsc"), "-p", join(root, "tsconfig.package.json")], { stdout: "inherit", stderr: "inherit" });
if (declarations.exitCode !== 0) throw new Error("declaration emit failed (tsc -p tsconfig.package.json)");
console.log("built dist/client and the declarations of agentbank and agentbank/testing");
