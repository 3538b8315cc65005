// One JSON line per request on stdout, buffered: console.log per request costs more than the
// request itself under load. Lines are flushed every 50 ms and at shutdown.
const FLUSH_MS = 50;
const writer = Bun.stdout.writer();
let pending: string[] = [];
let timer: ReturnType<typeof setTimeout> | null = null;

export function flushLog(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (pending.length === 0) return;
  writer.write(`${pending.join("\n")}\n`);
  void writer.flush();
  pending = [];
}

export function logLine(fields: Record<string, unknown>): void {
  pending.push(JSON.stringify(fields));
  timer ??= setTimeout(flushLog, FLUSH_MS);
}

/** The path of a request URL without parsing the whole URL. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}
