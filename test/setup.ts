// Preloaded by bunfig.toml before every test file. Each file boots real servers (and anvil, Chromium,
// PostgreSQL databases); on a loaded 2-core machine a start can take longer than bun's default of 5 s
// for a test or a hook. bunfig's own `timeout` key is not read by `bun test` (only --timeout is), so the
// default is set here, where it covers tests and hooks alike; a test that needs longer says so itself.
import { setDefaultTimeout } from "bun:test";

setDefaultTimeout(30_000);
