/** A QR code: the PNG the server drew, or one drawn here from the text when the server sent none. */
import { useEffect, useState } from "react";
import acct from "./account.module.css";

export function QrImage({ dataUrl, text, alt, size = 180 }: { dataUrl: string | null | undefined; text: string; alt: string; size?: number }) {
  const [local, setLocal] = useState<string | null>(null);
  useEffect(() => {
    if (dataUrl && dataUrl.startsWith("data:image/")) return;
    let alive = true;
    void import("qrcode")
      .then((q) => q.toDataURL(text, { margin: 1, width: size * 2 }))
      .then((url) => alive && setLocal(url))
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [dataUrl, text, size]);
  const src = dataUrl && dataUrl.startsWith("data:image/") ? dataUrl : local;
  return (
    <div className={acct.qrBox} style={{ width: size, height: size }}>
      {src ? <img src={src} alt={alt} width={size} height={size} data-testid="qr-image" /> : <span className="spinner" style={{ width: 24, height: 24 }} />}
    </div>
  );
}
