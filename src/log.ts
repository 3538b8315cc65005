// The service's log: JSON lines on stdout (stderr under `agentbank mcp` on stdio), buffered — console.log
// per line costs more than a request under load. Lines are flushed every 50 ms and at shutdown. Jobs, due
// work, the dispatchers and the request log (src/http/log.ts) all write through here.
import { iso } from "./clock";

const FLUSH_MS = 50;
let writer = Bun.stdout.writer();

/** For `agentbank mcp` on stdio, where stdout carries the protocol and nothing else. */
export function logToStderr(): void {
  flushLog();
  writer = Bun.stderr.writer();
}
let pending: string[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;

export function flushLog(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (pending.length === 0) return;
  const lines = `${pending.join("\n")}\n`;
  pending = [];
  // A closed stdout (the reader went away: EPIPE) loses the log, never the service.
  try {
    writer.write(lines);
    Promise.resolve(writer.flush()).catch(() => {});
  } catch {}
}

/** One structured line (the service's own events). */
export function logLine(fields: Record<string, unknown>): void {
  pushLine(JSON.stringify(fields));
}

/** A line already written as JSON text (the request log's, made without an object). */
export function pushLine(line: string): void {
  pending.push(line);
  timer ??= setTimeout(flushLog, FLUSH_MS);
}

// Many lines are written in the same millisecond: its ISO text is made once.
let stampMs = -1;
let stamp = "";
/** The current time as ISO text, for a line's "t". */
export function logStamp(): string {
  const ms = Date.now();
  if (ms !== stampMs) {
    stampMs = ms;
    stamp = iso(ms);
  }
  return stamp;
}
