// Copies Scalar's browser bundle (the /swagger page's script) to src/http/scalar.bundle.js, where
// src/http/docs.ts imports it by a path inside this package: that works from the checkout, from an
// installed tarball (whose dependencies an installer lays out as it likes) and in the compiled binary.
// @scalar/api-reference exports no path to the bundle, so it is found beside the package's exported
// entry. Runs on `bun install` (prepare), before `npm pack` and before `bun run build`.
import { copyFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(import.meta.resolve("@scalar/api-reference"));
const bundle = join(dirname(entry), "browser/standalone.js");
if (!existsSync(bundle)) throw new Error(`no browser bundle at ${bundle}: did @scalar/api-reference move it?`);
copyFileSync(bundle, join(import.meta.dir, "../src/http/scalar.bundle.js"));
