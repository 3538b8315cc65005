// A throwaway PostgreSQL for the suite, from Debian's `postgresql` package: initdb in a temporary
// folder and pg_ctl start on a free port on 127.0.0.1, as the `postgres` user when run as root
// (PostgreSQL refuses to run as root). `bun run test:postgres` uses it to run the whole suite on
// PostgreSQL; CI does the same.
import { chmodSync, existsSync, mkdtempSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The binaries of the newest PostgreSQL installed under /usr/lib/postgresql. */
function binaries(): string {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) throw new Error("PostgreSQL is not installed: apt-get install postgresql");
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  return join(root, version!, "bin");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

function run(command: string[]): void {
  const full = asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command;
  const result = Bun.spawnSync(full, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

/** Starts a cluster; returns its URL (superuser postgres, no password), its data folder and a stop function. */
export async function startCluster(): Promise<{ url: string; data: string; stop: () => void }> {
  const bin = binaries();
  const dir = mkdtempSync(join(tmpdir(), "agentbank-pg-"));
  if (asRoot) {
    chmodSync(dir, 0o777);
    Bun.spawnSync(["chown", "postgres:postgres", dir]);
  }
  const data = join(dir, "data");
  run([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  // Durable like production (fsync on), sized for a test machine; many test servers at once.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=400 -c shared_buffers=128MB`;
  run([join(bin, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, data, stop: () => stopCluster(data) };
}

export function stopCluster(data: string): void {
  run([join(binaries(), "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]);
}

if (import.meta.main) {
  // `bun run test/postgres/cluster.ts -- <command…>`: runs the command with TEST_DATABASE_URL set.
  // `… start` prints `<url> <data folder>` and leaves it running; `… stop <data folder>` stops it (CI).
  const command = process.argv.slice(2).filter((arg) => arg !== "--");
  if (command[0] === "start") {
    const cluster = await startCluster();
    console.log(`${cluster.url} ${cluster.data}`);
    process.exit(0);
  }
  if (command[0] === "stop") {
    stopCluster(command[1]!);
    process.exit(0);
  }
  const cluster = await startCluster();
  console.error(`agentbank: PostgreSQL for the tests at ${cluster.url}`);
  const child = Bun.spawn(command.length ? command : ["bun", "test"], { env: { ...process.env, TEST_DATABASE_URL: cluster.url }, stdout: "inherit", stderr: "inherit", stdin: "inherit" });
  const code = await child.exited;
  cluster.stop();
  process.exit(code);
}
