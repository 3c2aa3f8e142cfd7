/**
 * A minimal QR Code encoder (ISO/IEC 18004) for what the checkout shows: an EIP-681 payment URI
 * (`ethereum:<token>@<chain>/transfer?address=…&uint256=…`, about 150 bytes) or a bare address.
 * Byte mode, error correction level M, versions 1–9 (up to 180 bytes; the character count stays
 * 8 bits below version 10), and one fixed mask — any mask gives a valid symbol; choosing by penalty
 * only helps marginal scanners. These limits keep it near 1 kB gzipped, where `uqr` (every mode,
 * version and renderer) costs 3.9 kB of the checkout's 15 kB budget. It follows Project Nayuki's
 * reference encoder; `test/internal/qr-encode.test.ts` checks it module for module against `uqr`.
 */

/** The mask pattern used: (x + y) mod 3 == 0 (number 3 of the standard). */
export const QR_MASK = 3;

/** Level M, versions 1–9: error correction codewords per block, and blocks. */
const EC_PER_BLOCK = [10, 16, 26, 18, 24, 16, 18, 22, 22];
const BLOCKS = [1, 1, 1, 2, 2, 4, 4, 4, 5];
/**
 * Versions 1–9: the codewords each holds (data and error correction), its modules less the function
 * patterns over 8; the standard's table, which `test/internal/qr-encode.test.ts` derives again.
 */
export const RAW_CODEWORDS = [26, 44, 70, 100, 134, 172, 196, 242, 292];

/** Multiplies in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1. */
function multiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) z = (z << 1) ^ ((z >>> 7) * 0x11d) ^ (((y >>> i) & 1) * x);
  return z;
}

/** The Reed–Solomon remainder (`length` codewords) of `data`. */
function errorCorrection(data: number[], length: number): number[] {
  const divisor = Array<number>(length).fill(0);
  divisor[length - 1] = 1;
  for (let i = 0, root = 1; i < length; i++, root = multiply(root, 2)) {
    divisor.forEach((_, j) => (divisor[j] = multiply(divisor[j]!, root) ^ (divisor[j + 1] ?? 0)));
  }
  const remainder = Array<number>(length).fill(0);
  for (const byte of data) {
    const factor = byte ^ remainder.shift()!;
    remainder.push(0);
    divisor.forEach((coefficient, j) => (remainder[j]! ^= multiply(coefficient, factor)));
  }
  return remainder;
}

/** The modules (true = dark) of the QR code of `text`, without the quiet zone; undefined when it is too long for this encoder (over 180 bytes). */
export function encodeQr(text: string): boolean[][] | undefined {
  const bytes = new TextEncoder().encode(text);
  // The smallest version whose data codewords hold the 12 header bits, the bytes and the terminator.
  const version = EC_PER_BLOCK.findIndex((ec, i) => bytes.length + 2 <= RAW_CODEWORDS[i]! - ec * BLOCKS[i]!) + 1;
  if (!version) return undefined;
  const ecLength = EC_PER_BLOCK[version - 1]!;
  const blocks = BLOCKS[version - 1]!;
  const raw = RAW_CODEWORDS[version - 1]!;

  // Mode 0100 (byte), 8-bit length, the bytes, terminator 0000 — a half-byte shift of
  // [length, ...bytes] — then pad codewords 0xEC 0x11 …
  const header = [bytes.length, ...bytes];
  const data = [0x40 | (bytes.length >> 4), ...header.map((byte, i) => ((byte << 4) | ((header[i + 1] ?? 0) >> 4)) & 255)];
  for (let pad = 0xec; data.length < raw - ecLength * blocks; pad ^= 0xfd) data.push(pad);

  // Split into blocks (the last ones one codeword longer), each followed by its error correction,
  // then interleave: codeword i of every block in turn.
  const short = blocks - (raw % blocks);
  const shortData = ((raw / blocks) | 0) - ecLength;
  const split: number[][] = [];
  for (let i = 0, at = 0; i < blocks; i++) {
    const part = data.slice(at, (at += shortData + (i < short ? 0 : 1)));
    split.push([...part, ...(i < short ? [-1] : []), ...errorCorrection(part, ecLength)]);
  }
  const codewords = split[0]!.flatMap((_, i) => split.map((block) => block[i]!)).filter((byte) => byte >= 0);

  // Function patterns (timing lines, three finders, alignment patterns, format and version) go
  // into a grid where -1 marks a module still free for data.
  const size = version * 4 + 17;
  const grid = Array.from({ length: size }, () => Array<number>(size).fill(-1));
  const set = (x: number, y: number, dark: unknown) => {
    if (grid[y] && x >= 0 && x < size) grid[y]![x] = dark ? 1 : 0;
  };
  const square = (cx: number, cy: number, radius: number, light: number[]) => {
    for (let dy = -radius; dy <= radius; dy++)
      for (let dx = -radius; dx <= radius; dx++) set(cx + dx, cy + dy, !light.includes(Math.max(Math.abs(dx), Math.abs(dy))));
  };
  for (let i = 0; i < size; i++) {
    set(6, i, i % 2 == 0);
    set(i, 6, i % 2 == 0);
  }
  square(3, 3, 4, [2, 4]);
  square(size - 4, 3, 4, [2, 4]);
  square(3, size - 4, 4, [2, 4]);
  if (version > 1) {
    // Centres at 6 and size - 7, and from version 7 one between (22, 24, 26: the standard's table for
    // versions 7–9, the ones this encoder makes); none on a finder.
    const centres = version > 6 ? [6, version * 2 + 8, size - 7] : [6, size - 7];
    for (const y of centres) for (const x of centres) if (!((x == 6 && y == 6) || (x == 6 && y == size - 7) || (x == size - 7 && y == 6))) square(x, y, 2, [1]);
  }
  // Format: level M (00) and mask 3, BCH-extended and XORed with 101010000010010 (the standard's own
  // table of the 32 formats gives 0x5B4B for these); drawn twice.
  const format = 0x5b4b;
  for (let i = 0; i < 15; i++) {
    const bit = (format >>> i) & 1;
    set(8, i < 6 ? i : i < 8 ? i + 1 : size - 15 + i, bit);
    set(i < 8 ? size - 1 - i : i < 9 ? 7 : 14 - i, 8, bit);
  }
  set(8, size - 8, 1);
  // Version 7+: the version, BCH-extended to 18 bits (the standard's table: 0x07C94, 0x085BC and 0x09A99
  // for versions 7 to 9), in two 6×3 blocks.
  if (version > 6) {
    const bits = [0x7c94, 0x85bc, 0x9a99][version - 7]!;
    for (let i = 0; i < 18; i++) {
      const a = size - 11 + (i % 3);
      const b = (i / 3) | 0;
      set(a, b, (bits >>> i) & 1);
      set(b, a, (bits >>> i) & 1);
    }
  }

  // Codewords in the zigzag order, two columns at a time from the right, masked as they go.
  let index = 0;
  for (let right = size - 1; right > 0; right -= 2) {
    if (right == 6) right = 5;
    for (let vertical = 0; vertical < size; vertical++)
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = (right + 1) & 2 ? vertical : size - 1 - vertical;
        if (grid[y]![x]! < 0) {
          const bit = index < codewords.length * 8 && (codewords[index >>> 3]! >>> (7 - (index++ & 7))) & 1;
          grid[y]![x] = +(!bit == !((x + y) % 3));
        }
      }
  }
  return grid.map((row) => row.map(Boolean));
}
