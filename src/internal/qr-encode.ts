/**
 * A minimal QR Code encoder (ISO/IEC 18004) for what the checkout shows: a wallet address.
 * Byte mode, error correction level M, versions 1–3 (up to 42 bytes: an EVM address fits
 * exactly), and one fixed mask — any mask gives a valid symbol; choosing by penalty only helps
 * marginal scanners. These limits keep it under 1 kB gzipped, where `uqr` (every mode, version and
 * renderer) costs 3.9 kB of the checkout's 15 kB budget. It follows Project Nayuki's reference
 * encoder; `test/server/qr-encode.test.ts` checks it module for module against `uqr`.
 */

/** The mask pattern used: (x + y) mod 3 == 0 (number 3 of the standard). */
export const QR_MASK = 3;

/** Multiplies in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1. */
function multiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) z = (z << 1) ^ ((z >>> 7) * 0x11d) ^ (((y >>> i) & 1) * x);
  return z;
}

/** The modules (true = dark) of the QR code of `text`, without the quiet zone. */
export function encodeQr(text: string): boolean[][] {
  const bytes = new TextEncoder().encode(text);
  // Versions 1–3 at level M: data codewords 16, 28, 44; error correction 10, 16, 26 (one block).
  const version = [14, 26, 42].findIndex((capacity) => bytes.length <= capacity) + 1;
  if (!version) throw new RangeError('Text too long for this QR encoder');
  const ecLength = [10, 16, 26][version - 1]!;
  const dataLength = [16, 28, 44][version - 1]!;

  // Mode 0100 (byte), 8-bit length, the bytes, terminator 0000 — a half-byte shift of
  // [length, ...bytes] — then pad codewords 0xEC 0x11 …
  const header = [bytes.length, ...bytes];
  const data = [0x40 | (bytes.length >> 4), ...header.map((byte, i) => ((byte << 4) | ((header[i + 1] ?? 0) >> 4)) & 255)];
  for (let pad = 0xec; data.length < dataLength; pad ^= 0xfd) data.push(pad);

  // Reed–Solomon: generator polynomial of degree ecLength, then the remainder of the data.
  const divisor = Array<number>(ecLength).fill(0);
  divisor[ecLength - 1] = 1;
  for (let i = 0, root = 1; i < ecLength; i++, root = multiply(root, 2)) {
    divisor.forEach((_, j) => (divisor[j] = multiply(divisor[j]!, root) ^ (divisor[j + 1] ?? 0)));
  }
  const codewords = data.slice();
  const remainder = Array<number>(ecLength).fill(0);
  for (const byte of data) {
    const factor = byte ^ remainder.shift()!;
    remainder.push(0);
    divisor.forEach((coefficient, j) => (remainder[j]! ^= multiply(coefficient, factor)));
  }
  codewords.push(...remainder);

  // Function patterns: timing lines, three finders, the alignment pattern (version 2+), format.
  const size = version * 4 + 17;
  const grid = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  const reserved = grid.map((row) => row.slice());
  const set = (x: number, y: number, dark: unknown) => {
    if (grid[y] && x >= 0 && x < size) {
      grid[y]![x] = !!dark;
      reserved[y]![x] = true;
    }
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
  if (version > 1) square(size - 7, size - 7, 2, [1]);
  // Format: level M (00) and the mask, BCH-extended, XORed with 101010000010010; drawn twice.
  let format = QR_MASK;
  for (let i = 0; i < 10; i++) format = (format << 1) ^ ((format >>> 9) * 0x537);
  format = ((QR_MASK << 10) | format) ^ 0x5412;
  for (let i = 0; i < 15; i++) {
    const bit = (format >>> i) & 1;
    set(8, i < 6 ? i : i < 8 ? i + 1 : size - 15 + i, bit);
    set(i < 8 ? size - 1 - i : i < 9 ? 7 : 14 - i, 8, bit);
  }
  set(8, size - 8, 1);

  // Codewords in the zigzag order, two columns at a time from the right, masked as they go.
  let index = 0;
  for (let right = size - 1; right > 0; right -= 2) {
    if (right == 6) right = 5;
    for (let vertical = 0; vertical < size; vertical++)
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = (right + 1) & 2 ? vertical : size - 1 - vertical;
        if (!reserved[y]![x]) {
          const bit = index < codewords.length * 8 && (codewords[index >>> 3]! >>> (7 - (index++ & 7))) & 1;
          grid[y]![x] = !bit == !((x + y) % 3);
        }
      }
  }
  return grid;
}
