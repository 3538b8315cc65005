// The history as CSV for the owner's spreadsheet: one row per operation (as the Overview shows it),
// over a bounded range of UTC days and a bounded number of rows. RFC 4180 (CRLF, quotes doubled); a
// text cell that a spreadsheet would take for a formula starts with ' instead (OWASP "CSV injection").
// What a spreadsheet reads as typed values is written so: the day (YYYY-MM-DD) and the time (HH:MM:SS,
// UTC) in two columns, amounts as plain decimals with the currency's decimals ("-30.500000": no
// grouping, "." as the point), not text cells.
import { namesOf } from "../agents/service";
import { read } from "../db";
import { invalid } from "../errors";
import type { Currency } from "../money";
import { DAY_MS } from "../time";
import { isCurrency, plainDecimal } from "./format";
import { operationsOf } from "./history";
import { type AgentId } from "../ids";

export const CSV_LIMITS = { days: 366, rows: 100_000 };
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of a YYYY-MM-DD that names a real day, or null. */
function dayStart(text: string | undefined): number | null {
  const match = DATE.exec(text ?? "");
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().slice(0, 10) === text ? ms : null;
}

export type CsvRequest = { from?: string; to?: string; currency?: string };

/** The range and currency asked for, checked: both dates real, from ≤ to, at most CSV_LIMITS.days days (both ends counted). */
export function csvRange(request: CsvRequest): { fromMs: number; toMs: number; currency?: Currency } {
  const fromMs = dayStart(request.from);
  const toDay = dayStart(request.to);
  if (fromMs === null || toDay === null) throw invalid("from and to must be dates written YYYY-MM-DD");
  if (toDay < fromMs) throw invalid("to must not be before from");
  const toMs = toDay + DAY_MS;
  if (toMs - fromMs > CSV_LIMITS.days * DAY_MS) throw invalid(`at most ${CSV_LIMITS.days} days per file`);
  const currency = request.currency || undefined;
  if (currency !== undefined && !isCurrency(currency)) throw invalid(`no currency "${currency}"`);
  return { fromMs, toMs, currency };
}

/**
 * What a spreadsheet may read as the start of a formula (OWASP): = + - @ as the first character after
 * any whitespace (spreadsheets skip leading blanks and line breaks), in their ASCII, fullwidth
 * (＝ ＋ － ＠, which East Asian input and some importers turn into ASCII) and small (﹦ ﹢ ﹣ ﹫) forms;
 * or a tab, CR or LF as the very first character.
 */
const FORMULA_START = /^(?:[\t\r\n]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u;

/** A text cell: a formula's start defused with a leading ', then quoted as RFC 4180 asks. */
export function textCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

const HEADER = ["date", "time_utc", "what", "reason", "counterparty", "counterparty_id", "amount", "currency", "approved_by_owner", "reference"];

/** The CSV text of `agentId`'s operations in the range, oldest first; refused (400) above CSV_LIMITS.rows rows. */
export async function historyCsv(agentId: AgentId, request: CsvRequest): Promise<{ text: string; filename: string }> {
  const range = csvRange(request);
  const { data, more } = await read(operationsOf(agentId, range, CSV_LIMITS.rows, 0));
  if (more) throw invalid(`more than ${CSV_LIMITS.rows.toLocaleString("en")} operations in that range: choose a shorter one`);
  const names = new Map<string, string>();
  const ids = [...new Set(data.flatMap((op) => (op.counterpartyId ? [op.counterpartyId] : [])))];
  for (let start = 0; start < ids.length; start += 1000) for (const [id, name] of await read(namesOf(ids.slice(start, start + 1000)))) names.set(id, name);
  const lines = data.reverse().map((op) =>
    [
      op.at.slice(0, 10),
      op.at.slice(11, 19),
      textCell(op.what),
      textCell(op.reason ?? ""),
      textCell(op.counterpartyId ? (names.get(op.counterpartyId) ?? "") : (op.address ?? "")),
      op.counterpartyId ?? "",
      plainDecimal(op.amount, op.currency),
      op.currency,
      op.approved ? "yes" : "no",
      textCell(`${op.referenceType}:${op.referenceId}`),
    ].join(","),
  );
  const filename = `history-${request.from}-to-${request.to}${range.currency ? `-${range.currency}` : ""}.csv`;
  return { text: [HEADER.join(","), ...lines].join("\r\n") + "\r\n", filename };
}
