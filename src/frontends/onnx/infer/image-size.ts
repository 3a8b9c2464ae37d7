// An encoded image's height and width read from its header, for ImageDecoder's shape (onnx 1.23.1
// Operators.md, ImageDecoder-20: the formats it decodes are JPEG, PNG, BMP, JPEG 2000, TIFF, WebP
// and PNM). Each reader follows the format's own layout: PNG's IHDR chunk, BMP's
// BITMAPINFOHEADER, JPEG's first start-of-frame marker, JPEG 2000's ihdr box (or a raw codestream's
// SIZ marker), TIFF's ImageWidth / ImageLength tags (256, 257), WebP's VP8 / VP8L / VP8X chunk
// and PNM's text header.

type Bytes = readonly number[];
const be16 = (b: Bytes, o: number) => (b[o] << 8) | b[o + 1];
const le16 = (b: Bytes, o: number) => b[o] | (b[o + 1] << 8);
const be32 = (b: Bytes, o: number) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
const le32 = (b: Bytes, o: number) => (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
const le24 = (b: Bytes, o: number) => b[o] | (b[o + 1] << 8) | (b[o + 2] << 16);
const ascii = (b: Bytes, o: number, n: number) => String.fromCharCode(...b.slice(o, o + n));

function jpeg(b: Bytes): [number, number] | undefined {
  let o = 2;
  while (o + 9 < b.length) {
    if (b[o] !== 0xff) return undefined;
    const marker = b[o + 1];
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return [be16(b, o + 5), be16(b, o + 7)];
    o += 2 + be16(b, o + 2);
  }
  return undefined;
}

function tiff(b: Bytes): [number, number] | undefined {
  const little = b[0] === 0x49;
  const u16 = (o: number) => (little ? le16(b, o) : be16(b, o));
  const u32 = (o: number) => (little ? le32(b, o) : be32(b, o));
  const ifd = u32(4);
  let width: number | undefined, height: number | undefined;
  for (let k = 0, n = u16(ifd); k < n; ++k) {
    const e = ifd + 2 + 12 * k;
    if (e + 12 > b.length) return undefined;
    const tag = u16(e), value = u16(e + 2) === 3 ? u16(e + 8) : u32(e + 8);
    if (tag === 256) width = value;
    if (tag === 257) height = value;
  }
  return width !== undefined && height !== undefined ? [height, width] : undefined;
}

function webp(b: Bytes): [number, number] | undefined {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ') return [le16(b, 28) & 0x3fff, le16(b, 26) & 0x3fff];
  if (chunk === 'VP8L') return [1 + (((b[24] & 0x0f) << 10) | (b[23] << 2) | ((b[22] & 0xc0) >> 6)), 1 + (((b[22] & 0x3f) << 8) | b[21])];
  if (chunk === 'VP8X') return [1 + le24(b, 27), 1 + le24(b, 24)];
  return undefined;
}

function jpeg2000(b: Bytes): [number, number] | undefined {
  if (b[0] === 0xff && b[1] === 0x4f) return [be32(b, 12) - be32(b, 20), be32(b, 8) - be32(b, 16)]; // SIZ: Ysiz - YOsiz, Xsiz - XOsiz
  for (let o = 0; o + 16 <= b.length; ++o) if (ascii(b, o, 4) === 'ihdr') return [be32(b, o + 4), be32(b, o + 8)];
  return undefined;
}

function pnm(b: Bytes): [number, number] | undefined {
  const text = ascii(b, 0, Math.min(b.length, 512)).replace(/#[^\n]*/g, ' ');
  const m = /^P[1-7]\s+(\d+)\s+(\d+)/.exec(text);
  return m ? [Number(m[2]), Number(m[1])] : undefined;
}

/** [height, width] of the encoded image `b`, or undefined when its format or header is not one read here. */
export function imageSize(b: Bytes): [number, number] | undefined {
  if (b.length < 16) return undefined;
  if (b[0] === 0x89 && ascii(b, 1, 3) === 'PNG') return [be32(b, 20), be32(b, 16)];
  if (ascii(b, 0, 2) === 'BM') return [Math.abs(le32(b, 22) | 0), Math.abs(le32(b, 18) | 0)];
  if (b[0] === 0xff && b[1] === 0xd8) return jpeg(b);
  if ((ascii(b, 0, 4) === 'II*\0') || (ascii(b, 0, 4) === 'MM\0*')) return tiff(b);
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webp(b);
  if (ascii(b, 4, 4) === 'jP  ' || (b[0] === 0xff && b[1] === 0x4f)) return jpeg2000(b);
  if (b[0] === 0x50 && b[1] >= 0x31 && b[1] <= 0x37) return pnm(b);
  return undefined;
}
