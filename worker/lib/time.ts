/** Display times: "YYYY-MM-DD HH:mm:ss" in Asia/Shanghai (UTC+8, no daylight saving), the spec's zone. */
const SHANGHAI_OFFSET_MS = 8 * 3600 * 1000;

export function formatShanghai(ms: number): string {
  return new Date(ms + SHANGHAI_OFFSET_MS).toISOString().slice(0, 19).replace("T", " ");
}
