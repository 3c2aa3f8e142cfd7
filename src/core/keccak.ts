/**
 * Keccak-256 as Ethereum uses it (the original Keccak padding, 0x01, not SHA-3's 0x06), for EIP-55
 * checksums and the sandbox's hashes. Written out on bigint lanes because the admin bundle carries it:
 * @noble/hashes' sponge, built for speed on 32-bit halves with its byte utilities, cost
 * `dist/paylink.js` 2.2 kB gzipped, this 0.5 kB. One hash of an address takes one permutation, well
 * under a millisecond. Checked against @noble/hashes and viem in the tests.
 * Isomorphic: no DOM, no Node.
 */

/** Bytes absorbed per permutation: 1600 bits of state less twice the 256-bit capacity. */
const RATE = 136;
const MASK = (1n << 64n) - 1n;

/** The 64-bit lane `lane` rotated left by `bits`. */
const rotate = (lane: bigint, bits: bigint): bigint => ((lane << bits) | (lane >> (64n - bits))) & MASK;

/** The round constants, from Keccak's 8-bit linear feedback shift register. */
const ROUND_CONSTANTS: bigint[] = [];
for (let round = 0, register = 1; round < 24; round++) {
  let constant = 0n;
  for (let bit = 0; bit < 7; bit++) {
    register = ((register << 1) ^ ((register >> 7) * 0x71)) % 256;
    if (register & 2) constant ^= 1n << BigInt((1 << bit) - 1);
  }
  ROUND_CONSTANTS.push(constant);
}

/** Keccak-f[1600] on `state`, 25 lanes indexed x + 5y. */
function permute(state: bigint[]): void {
  for (const constant of ROUND_CONSTANTS) {
    // θ: each lane takes in the parities of the two neighbouring columns.
    const parity = [0, 1, 2, 3, 4].map((x) => state[x]! ^ state[x + 5]! ^ state[x + 10]! ^ state[x + 15]! ^ state[x + 20]!);
    for (let x = 0; x < 5; x++) {
      const effect = parity[(x + 4) % 5]! ^ rotate(parity[(x + 1) % 5]!, 1n);
      for (let y = 0; y < 25; y += 5) state[y + x]! ^= effect;
    }
    // ρ and π: lanes rotate by the triangular numbers as they move along (x, y) → (y, 2x + 3y).
    let x = 1;
    let y = 0;
    let moving = state[1]!;
    for (let step = 1; step < 25; step++) {
      [x, y] = [y, (2 * x + 3 * y) % 5];
      const next = state[x + 5 * y]!;
      state[x + 5 * y] = rotate(moving, BigInt(((step * (step + 1)) / 2) % 64));
      moving = next;
    }
    // χ: the only non-linear step, row by row.
    for (let row = 0; row < 25; row += 5) {
      const lanes = state.slice(row, row + 5);
      for (let x = 0; x < 5; x++) state[row + x] = lanes[x]! ^ (~lanes[(x + 1) % 5]! & lanes[(x + 2) % 5]!);
    }
    // ι
    state[0]! ^= constant;
  }
}

/** The Keccak-256 hash of `bytes` (32 bytes). */
export function keccak256(bytes: Uint8Array): Uint8Array {
  // Padded to whole blocks: 0x01 right after the message, 0x80 on the last byte (one byte when they meet).
  const padded = new Uint8Array((Math.floor(bytes.length / RATE) + 1) * RATE);
  padded.set(bytes);
  padded[bytes.length] = 1;
  padded[padded.length - 1]! |= 0x80;
  const input = new DataView(padded.buffer);
  const state: bigint[] = Array(25).fill(0n);
  for (let block = 0; block < padded.length; block += RATE) {
    for (let lane = 0; lane < RATE / 8; lane++) state[lane]! ^= input.getBigUint64(block + 8 * lane, true);
    permute(state);
  }
  const digest = new DataView(new ArrayBuffer(32));
  for (let lane = 0; lane < 4; lane++) digest.setBigUint64(8 * lane, state[lane]!, true);
  return new Uint8Array(digest.buffer);
}
