// One process per address (issue 35): with SO_REUSEPORT a second `agentbank serve` on a taken port
// started anyway and the kernel split the connections between the two — two databases behind one
// address, one key answering 200 and 401 in turn. The listener is exclusive: the second start stops
// with one JSON line naming the port, exit 1, and the first keeps every request.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startServer } from "./helpers/server";
import { within } from "./helpers/wait";

setDefaultTimeout(60_000);

const MAIN = join(import.meta.dir, "..", "src/main.ts");

/** The stream's text up to a start-up line, or all of it if it closes first. */
async function untilListeningOrClosed(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += decoder.decode(chunk);
    if (text.includes("listening on")) break;
  }
  return text;
}

describe("the listener", () => {
  test("a second serve on a taken port exits 1 with one line naming the port; the first keeps all the traffic", async () => {
    const server = await startServer();
    try {
      const agent = await server.register();
      const { port } = new URL(server.url);
      // Its own database, as a stale or mistaken second start would have (the same SQLite file is refused earlier).
      const second = Bun.spawn(["bun", "run", MAIN, "serve"], {
        env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: port, DATABASE_PATH: ":memory:" },
        stdout: "pipe",
        stderr: "pipe",
      });
      // It stops, or (as before the fix) says it listens: either way the requests below run while it is what it became.
      const stdout = await within(20_000, "the second start", untilListeningOrClosed(second.stdout));
      try {
        const statuses = [];
        // A connection each, as curl makes them: the kernel spreads connections, not requests.
        for (let index = 0; index < 12; index += 1) statuses.push((await fetch(`${server.url}/wallets/balance`, { headers: { authorization: `Bearer ${agent.apiKey}` }, keepalive: false })).status);
        expect(statuses).toEqual(Array(12).fill(200));
      } finally {
        second.kill("SIGKILL");
      }
      expect({ code: await second.exited, stdout }).toEqual({ code: 1, stdout: "" });
      const lines = (await new Response(second.stderr).text()).trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toEqual({
        level: "error",
        t: expect.any(String),
        msg: `port ${port} is in use: another process listens on 127.0.0.1:${port}`,
        port: Number(port),
        host: "127.0.0.1",
      });
    } finally {
      await server.close();
    }
  });
});
