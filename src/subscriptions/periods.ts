// When period n of a subscription is due. Always computed from the anchor (never from the previous
// due date), so MONTHLY from Jan 31 goes Feb 28/29, Mar 31, Apr 30: clamped to each month's end. UTC.
import { DAY_MS } from "../time";

export const FREQUENCIES = ["DAILY", "WEEKLY", "MONTHLY"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export function periodStart(anchorMs: number, frequency: Frequency, period: number): number {
  if (frequency === "DAILY") return anchorMs + period * DAY_MS;
  if (frequency === "WEEKLY") return anchorMs + period * 7 * DAY_MS;
  const anchor = new Date(anchorMs);
  const monthIndex = anchor.getUTCMonth() + period;
  const year = anchor.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(anchor.getUTCDate(), lastDay),
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  );
}
