/** Beijing calendar days ("YYYY-MM-DD", UTC+8, no daylight saving): the days rebates are settled by. */
const OFFSET = 8 * 3600 * 1000;
const DAY = 86_400_000;

export const beijingDay = (ms: number): string => new Date(ms + OFFSET).toISOString().slice(0, 10);
/** Epoch ms of the day's first instant (00:00 Beijing = 16:00 UTC the day before). */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00Z`) - OFFSET;
export const dayEnd = (day: string): number => dayStart(day) + DAY;
export const addDays = (day: string, n: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY).toISOString().slice(0, 10);
/** The same calendar day `months` months earlier (clamped to the month's end), as a day. */
export function monthsBefore(day: string, months: number): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const first = new Date(Date.UTC(y, m - 1 - months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d, last))).toISOString().slice(0, 10);
}
