/** A coin's logo, or its initial on a tinted disc when the logo is missing or fails to load. */
import { useState } from "react";

const tints = ["#f0b90b", "#5b8def", "#2ebd85", "#c084fc", "#f6465d", "#38bdf8"];

export function CoinAvatar({ symbol, logo, size = 28 }: { symbol: string; logo?: string | null; size?: number }) {
  const [failed, setFailed] = useState(false);
  if (logo && !failed) {
    return <img className="coin-avatar" src={logo} alt="" width={size} height={size} onError={() => setFailed(true)} />;
  }
  const tint = tints[(symbol.charCodeAt(0) || 0) % tints.length];
  return (
    <span className="coin-avatar coin-avatar-letter" style={{ width: size, height: size, background: tint, fontSize: size * 0.45 }} aria-hidden="true">
      {symbol.slice(0, 1).toUpperCase()}
    </span>
  );
}
