/** A candidate's share of a round's votes, as a percent with one decimal, rounded down ("33.3"); "0" when nobody voted. Vote counts are whole numbers, not money. */
export function sharePercent(votes: number, total: number): string {
  if (total <= 0 || votes <= 0) return "0";
  const tenths = Math.floor((votes * 1000) / total);
  return tenths % 10 === 0 ? String(tenths / 10) : `${Math.floor(tenths / 10)}.${tenths % 10}`;
}
