/**
 * The checkout's minimal QR encoder must produce exactly the symbol a full encoder (uqr, after
 * Nayuki's reference) produces for the same text at level M with the same mask.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode } from 'uqr';
import { QR_MASK, RAW_CODEWORDS, encodeQr } from '../../src/internal/qr-encode.js';

const reference = (text: string) => encode(text, { ecc: 'M', maskPattern: QR_MASK, border: 0, boostEcc: false });

test('texts of every supported version give the reference symbol, module for module', () => {
  // The longest text of each version 1–9 at level M, and one byte more (the next version).
  const capacities = [14, 26, 42, 62, 84, 106, 122, 152, 180];
  const texts = ['hi', 'a short text', 'a text for version two'];
  for (const capacity of capacities) texts.push('x'.repeat(capacity), 'y'.repeat(capacity + 1));
  for (const text of texts.filter((text) => text.length <= 180)) {
    const symbol = encodeQr(text)!;
    assert.equal(symbol.length, reference(text).size, `version of ${text.length} bytes`);
    assert.deepEqual(symbol, reference(text).data, text);
  }
  assert.equal(encodeQr('x'.repeat(180))!.length, 9 * 4 + 17);
});

test('EVM addresses (42 bytes, mixed or lower case) fit version 3 and match the reference', () => {
  for (const address of ['0x52908400098527886E0F7030069857D2E4169EE7', '0xde709f2102306220921060314715629080e2fb77']) {
    const symbol = encodeQr(address)!;
    assert.equal(symbol.length, 29);
    assert.deepEqual(symbol, reference(address).data);
  }
});

test('EIP-681 token transfers (18-decimal amounts, long chain ids) match the reference', () => {
  const token = '0x55d398326f99059fF775485246999027B3197955';
  const to = '0x52908400098527886E0F7030069857D2E4169EE7';
  for (const [chain, units] of [
    [56, '12187813000000000000'],
    [31337, '100000000000000000000000'],
    [56, '1'],
  ] as const) {
    const uri = `ethereum:${token}@${chain}/transfer?address=${to}&uint256=${units}`;
    assert.deepEqual(encodeQr(uri), reference(uri).data, uri);
  }
});

test('the codewords of each version are its modules less the function patterns, over 8', () => {
  const rawCodewords = (version: number) => {
    const align = version > 1 ? ((version / 7) | 0) + 2 : 0;
    let modules = (16 * version + 128) * version + 64;
    if (align) modules -= (25 * align - 10) * align - 55 + (version > 6 ? 36 : 0);
    return modules >> 3;
  };
  assert.deepEqual(RAW_CODEWORDS, [1, 2, 3, 4, 5, 6, 7, 8, 9].map(rawCodewords));
});

test('a text longer than 180 bytes (version 10 and up) is refused', () => {
  assert.equal(encodeQr('x'.repeat(181)), undefined, 'too long for this encoder');
});
