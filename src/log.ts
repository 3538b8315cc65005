// The service's log: one JSON object per line, every line with `level`, `t` (ISO time) and `msg` — the
// request log's lines (src/http/log.ts) carry their fields instead of a `msg`. Lines go to stdout (stderr
// under `agentbank mcp` on stdio, where stdout carries the protocol), buffered — a write per line costs
// more than a request under load — and flushed every 50 ms, at shutdown and before a fatal line. Lines
// below LOG_LEVEL are not made at all. Nothing here imports the service: the database logs through it.
import { writeSync } from "node:fs";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
let lowest = RANK.info;

/** LOG_LEVEL, set once the configuration is read (until then: info). */
export function setLogLevel(level: LogLevel): void {
  lowest = RANK[level];
}

/** Whether a line of `level` is written (the request log asks before it makes its line). */
export const logs = (level: LogLevel): boolean => RANK[level] >= lowest;

const FLUSH_MS = 50;
const STDOUT = 1;
const STDERR = 2;
let fd = STDOUT;

/** For `agentbank mcp` on stdio, where stdout carries the protocol and nothing else (a line already buffered too). */
export function logToStderr(): void {
  fd = STDERR;
}
let pending: string[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;

/**
 * Writes `text` whole, synchronously: a flush at exit loses nothing (Bun's asynchronous stdout writer
 * drops what the reader had not taken when the process exits). A descriptor someone made non-blocking is
 * waited for; a closed one (EPIPE: the reader went away) loses the log, never the service.
 */
function writeAll(to: number, text: string): void {
  let bytes = Buffer.from(text);
  const deadline = Date.now() + 2000;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(to, bytes));
    } catch (error) {
      if ((error as { code?: string }).code !== "EAGAIN" || Date.now() > deadline) return;
      Bun.sleepSync(1);
    }
  }
}

export function flushLog(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (pending.length === 0) return;
  const lines = `${pending.join("\n")}\n`;
  pending = [];
  writeAll(fd, lines);
}

type Fields = { level: LogLevel; msg: string } & Record<string, unknown>;
const lineOf = ({ level, msg, ...rest }: Fields) => JSON.stringify({ level, t: logStamp(), msg, ...rest });

/** One structured line (the service's own events), if LOG_LEVEL lets its level through. */
export function logLine(fields: Fields): void {
  if (logs(fields.level)) pushLine(lineOf(fields));
}

/** A line written at every LOG_LEVEL: the start-up line that tests, scripts and people wait for (CONTRACT §1). */
export function logAlways(fields: Fields): void {
  pushLine(lineOf(fields));
}

/** A line already written as JSON text (the request log's, made without an object). */
export function pushLine(line: string): void {
  pending.push(line);
  timer ??= setTimeout(flushLog, FLUSH_MS);
}

/** Text a command prints as its product (`agentbank dev`'s banner), after the log lines before it. */
export function printText(text: string): void {
  flushLog();
  writeAll(STDOUT, text);
}

/**
 * Stops the process: what is buffered goes out first, then this one error line on stderr (whatever
 * LOG_LEVEL says), then exit with `code`. Synchronous, so nothing else runs in between.
 */
export function exitWith(code: number, msg: string, fields: Record<string, unknown> = {}): never {
  flushLog();
  writeAll(STDERR, `${lineOf({ level: "error", msg, ...fields })}\n`);
  process.exit(code);
}

// Many lines are written in the same millisecond: its ISO text is made once.
let stampMs = -1;
let stamp = "";
/** The current time as ISO text, for a line's "t" (the real time, not the test clock's). */
export function logStamp(): string {
  const ms = Date.now();
  if (ms !== stampMs) {
    stampMs = ms;
    stamp = new Date(ms).toISOString();
  }
  return stamp;
}
