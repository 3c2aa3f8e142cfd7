/**
 * The checkout's minimal QR encoder must produce exactly the symbol a full encoder (uqr, after
 * Nayuki's reference) produces for the same text at level M with the same mask.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encode } from 'uqr';
import { QR_MASK, encodeQr } from '../../src/internal/qr-encode.js';

const reference = (text: string) => encode(text, { ecc: 'M', maskPattern: QR_MASK, border: 0, boostEcc: false });

test('texts of every supported version give the reference symbol, module for module', () => {
  const texts = ['hi', 'a short text', 'x'.repeat(14), 'y'.repeat(15), 'a text for version two', 'z'.repeat(26), 'w'.repeat(27)];
  for (const text of texts) assert.deepEqual(encodeQr(text), reference(text).data, text);
});

test('EVM addresses (42 bytes, mixed or lower case) fit version 3 and match the reference', () => {
  for (const address of ['0x52908400098527886E0F7030069857D2E4169EE7', '0xde709f2102306220921060314715629080e2fb77']) {
    const symbol = encodeQr(address);
    assert.equal(symbol.length, 29);
    assert.deepEqual(symbol, reference(address).data);
  }
});

test('a text longer than 42 bytes is refused', () => {
  assert.throws(() => encodeQr('x'.repeat(43)), RangeError);
});
