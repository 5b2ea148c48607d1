/**
 * The console's section nav scrolls sideways on a phone; the active section must be in view
 * (at 390 px the C2C sections are past the right edge). Where to scroll the nav so the active
 * item is centred, kept within the nav's scroll range. Pure, so it is tested without a browser.
 */
export function navScrollLeft(itemLeft: number, itemWidth: number, viewWidth: number, scrollWidth: number): number {
  const centred = itemLeft + itemWidth / 2 - viewWidth / 2;
  const max = Math.max(0, scrollWidth - viewWidth);
  return Math.round(Math.min(max, Math.max(0, centred)));
}
