// A server process for the bench: spawned with its stdout piped, ready once its output matches, then
// drained for good so that it never blocks on a full pipe (the request log).
import { readdirSync, readFileSync } from "node:fs";

export type Server = { child: ReturnType<typeof Bun.spawn>; url: string; stop: () => Promise<void> };

/** Spawns `command`; resolves when its stdout matches `ready`, whose first group is the server's URL. */
export async function spawnServer(command: string[], options: { cwd: string; env: Record<string, string> }, ready: RegExp): Promise<Server> {
  const child = Bun.spawn(command, { ...options, stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let output = "";
  while (!ready.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${command.join(" ")} exited: ${output}`);
    output += new TextDecoder().decode(value);
  }
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.exited;
  };
  return { child, url: ready.exec(output)![1]!, stop };
}

/** User + system CPU of a process and all its threads, in µs (/proc, clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * User + system CPU of each of a process's threads, in µs, summed by thread name (the main thread as
 * "main"; Bun names its others, e.g. "HTTP Client", "JITWorker", "Bun Pool 0", a Worker's "Worker").
 * A thread that ended since is not counted.
 */
export function cpuMicrosByThread(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const id of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = id === String(pid) ? "main" : readFileSync(`/proc/${pid}/task/${id}/comm`, "utf8").trim().replace(/\s*\d+$/, "");
      const fields = readFileSync(`/proc/${pid}/task/${id}/stat`, "utf8").split(") ")[1]!.split(" ");
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}
