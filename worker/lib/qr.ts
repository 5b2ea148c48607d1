/**
 * QR codes as PNG data URLs. The `qrcode` package computes the symbol; its own PNG writer needs a
 * canvas or Node streams, neither of which a Worker has, so the modules are written here as an
 * 8-bit greyscale PNG compressed with the runtime's CompressionStream (zlib "deflate" = PNG IDAT).
 */
import QRCode from "qrcode";

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A PNG (as a data URL) of the QR code of `text`: `scale` pixels per module, 4-module quiet zone. */
export async function qrPngDataUrl(text: string, scale = 4): Promise<string> {
  const qr = QRCode.create(text, { errorCorrectionLevel: "M" });
  const n = qr.modules.size;
  const margin = 4;
  const size = (n + 2 * margin) * scale;
  const stride = size + 1; // one filter byte (0 = none) per row
  const raw = new Uint8Array(stride * size).fill(255);
  for (let y = 0; y < size; y++) {
    raw[y * stride] = 0;
    const row = Math.floor(y / scale) - margin;
    if (row < 0 || row >= n) continue;
    for (let x = 0; x < size; x++) {
      const col = Math.floor(x / scale) - margin;
      if (col >= 0 && col < n && qr.modules.data[row * n + col]) raw[y * stride + 1 + x] = 0;
    }
  }
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, size);
  v.setUint32(4, size);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const png = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", await deflate(raw)),
    chunk("IEND", new Uint8Array(0)),
  ];
  const total = new Uint8Array(png.reduce((s, p) => s + p.length, 0));
  let off = 0;
  for (const p of png) {
    total.set(p, off);
    off += p.length;
  }
  return `data:image/png;base64,${base64(total)}`;
}
