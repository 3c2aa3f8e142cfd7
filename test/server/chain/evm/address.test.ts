/**
 * EVM address checks: a payout sent to a mistyped address is lost, so the EIP-55 checksum must be
 * computed exactly as wallets do. Vectors from the EIP-55 specification.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { getAddress, keccak256 as viemKeccak256 } from 'viem';
import { checkAddress, isValidEvmAddress, toChecksumAddress } from '../../../../src/core/evm-address.js';
import { keccak256 } from '../../../../src/core/keccak.js';

const EIP55_VECTORS = [
  // All caps
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  // All lower
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  // Mixed
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

const MIXED = EIP55_VECTORS.slice(4);

/** Flips the case of the first letter in the hex body: a typo the checksum must catch. */
function flipFirstLetter(address: string): string {
  const body = address.slice(2);
  const index = body.search(/[a-fA-F]/);
  const char = body[index]!;
  const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
  return `0x${body.slice(0, index)}${flipped}${body.slice(index + 1)}`;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('keccak256', () => {
  test('hashes the empty message and "abc" to the published Keccak-256 digests', () => {
    assert.equal(hex(keccak256(new Uint8Array())), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    assert.equal(hex(keccak256(new TextEncoder().encode('abc'))), '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45');
  });

  test('agrees with @noble/hashes and viem at every length around the 136-byte block', () => {
    for (const length of [1, 20, 40, 64, 134, 135, 136, 137, 200, 271, 272, 273, 1000]) {
      for (let i = 0; i < 5; i++) {
        const bytes = new Uint8Array(randomBytes(length));
        const digest = hex(keccak256(bytes));
        assert.equal(digest, hex(keccak_256(bytes)), `${length} bytes`);
        assert.equal(`0x${digest}`, viemKeccak256(bytes), `${length} bytes`);
      }
    }
  });
});

describe('toChecksumAddress', () => {
  test('produces the EIP-55 form of every specification vector', () => {
    for (const vector of MIXED) {
      assert.equal(toChecksumAddress(vector.toLowerCase()), vector);
      assert.equal(toChecksumAddress(`0x${vector.slice(2).toUpperCase()}`), vector);
      assert.equal(toChecksumAddress(vector), vector);
    }
  });

  test('checksums the all-caps and all-lower vectors too', () => {
    assert.equal(toChecksumAddress('0x52908400098527886E0F7030069857D2E4169EE7'), '0x52908400098527886E0F7030069857D2E4169EE7');
    assert.equal(toChecksumAddress('0xde709f2102306220921060314715629080e2fb77'), '0xde709f2102306220921060314715629080e2fb77');
  });

  test('refuses what is not an address', () => {
    assert.throws(() => toChecksumAddress('0x123'), TypeError);
    assert.throws(() => toChecksumAddress('5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), TypeError);
  });

  test('agrees with viem, the chain library of the service, on a thousand random addresses', () => {
    for (let i = 0; i < 1000; i++) {
      const lower = `0x${randomBytes(20).toString('hex')}`;
      assert.equal(toChecksumAddress(lower), getAddress(lower), lower);
    }
  });
});

describe('checkAddress', () => {
  test('accepts every specification vector', () => {
    for (const vector of EIP55_VECTORS) assert.equal(checkAddress(vector), 'ok', vector);
  });

  test('accepts single-case addresses, which carry no checksum', () => {
    for (const vector of MIXED) {
      assert.equal(checkAddress(vector.toLowerCase()), 'ok');
      assert.equal(checkAddress(`0x${vector.slice(2).toUpperCase()}`), 'ok');
    }
  });

  test('catches a mixed-case address with one letter in the wrong case', () => {
    for (const vector of MIXED) assert.equal(checkAddress(flipFirstLetter(vector)), 'bad_checksum', vector);
  });

  test('reports the wrong shape as invalid_format', () => {
    for (const bad of [
      '',
      '0x',
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe', // 39 digits
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed0', // 41 digits
      '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00', // no 0x
      '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', // capital X prefix
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg', // not hex
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1 BeAed',
    ]) {
      assert.equal(checkAddress(bad), 'invalid_format', bad);
    }
    assert.equal(checkAddress(undefined as unknown as string), 'invalid_format');
  });

  test('ignores whitespace around a pasted address', () => {
    assert.equal(checkAddress(`  ${MIXED[0]}\n`), 'ok');
  });
});

describe('isValidEvmAddress', () => {
  test('is true only for an ok address', () => {
    assert.equal(isValidEvmAddress(MIXED[1]!), true);
    assert.equal(isValidEvmAddress(flipFirstLetter(MIXED[1]!)), false);
    assert.equal(isValidEvmAddress('0xnope'), false);
  });
});

describe('the checksums with the Keccak the service gives them', () => {
  test('the service registers a Keccak that spells every address as the small one and viem do', async () => {
    const { useKeccak256 } = await import('../../../../src/core/evm-address.js');
    const addresses = Array.from({ length: 200 }, () => `0x${randomBytes(20).toString('hex')}`);
    try {
      useKeccak256(keccak256);
      const small = addresses.map((a) => toChecksumAddress(a));
      // The server's address module sets its Keccak when it loads (first loaded here), as in any service.
      const { checkEvmAddress } = await import('../../../../src/server/chain/evm/address.js');
      assert.deepEqual(
        addresses.map((a) => toChecksumAddress(a)),
        small,
      );
      assert.deepEqual(
        small,
        addresses.map((a) => getAddress(a)),
      );
      for (const a of small) assert.deepEqual(checkEvmAddress(a), { ok: true, address: a });
      for (const a of MIXED) assert.equal(checkAddress(flipFirstLetter(a)), 'bad_checksum');
    } finally {
      useKeccak256(keccak_256);
    }
  });
});
