/** Line icons drawn for this app on a 24×24 grid (stroke = currentColor). */
import type { SVGProps } from "react";
import { ICON_PATHS, LOGO_PATHS, type IconName } from "./iconPaths.ts";

export type { IconName };

export function Icon({ name, size = 22, ...rest }: { name: IconName; size?: number } & SVGProps<SVGSVGElement>) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.7}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...rest}
    >
      <path d={ICON_PATHS[name]} />
    </svg>
  );
}

/** The brand mark: a yellow hexagon with an "H". */
export function LogoMark({ size = 24 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path d={LOGO_PATHS.hexagon} fill="var(--accent)" />
      <path d={LOGO_PATHS.letter} stroke="var(--accent-ink)" strokeWidth="3.2" strokeLinecap="round" />
    </svg>
  );
}
