// A server process for the bench: spawned with its stdout piped, ready once its output matches, then
// drained for good so that it never blocks on a full pipe (the request log).
import { readFileSync } from "node:fs";

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
