/**
 * Deposit addresses come from the account-level xpub alone: if one differed from what the wallet
 * (the mnemonic, as every wallet derives it) controls, a customer's payment would be lost.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mnemonicToAccount } from 'viem/accounts';
import { accountXpubFromMnemonic, depositAddresses, depositKeys, MAX_DEPOSIT_INDEX } from '../../../../src/server/chain/evm/addresses.js';
import { ANVIL_MNEMONIC } from '../../../../src/server/chain/evm/anvil.js';
import { DEPOSIT_MNEMONIC, DEPOSIT_XPUB } from '../../../support/anvil.js';

describe('deposit addresses from the xpub', () => {
  it("match viem's mnemonicToAccount at m/44'/60'/0'/0/n, for two wallets and far indexes", () => {
    for (const mnemonic of [DEPOSIT_MNEMONIC, ANVIL_MNEMONIC]) {
      const addresses = depositAddresses(accountXpubFromMnemonic(mnemonic));
      for (const index of [0, 1, 2, 7, 19, 1_000, 123_456, MAX_DEPOSIT_INDEX]) {
        assert.equal(addresses.address(index), mnemonicToAccount(mnemonic, { addressIndex: index }).address, `${mnemonic.slice(0, 8)}… #${index}`);
      }
    }
  });

  it("give anvil's well-known dev accounts for anvil's mnemonic (an outside reference)", () => {
    const addresses = depositAddresses(accountXpubFromMnemonic(ANVIL_MNEMONIC));
    assert.equal(addresses.address(0), '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    assert.equal(addresses.address(1), '0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });

  it('are distinct per index', () => {
    const addresses = depositAddresses(DEPOSIT_XPUB);
    const seen = new Set(Array.from({ length: 200 }, (_, i) => addresses.address(i)));
    assert.equal(seen.size, 200);
  });

  it('refuse indexes that are not BIP-32 non-hardened children', () => {
    const addresses = depositAddresses(DEPOSIT_XPUB);
    for (const bad of [-1, 1.5, MAX_DEPOSIT_INDEX + 1, Number.NaN]) assert.throws(() => addresses.address(bad), RangeError);
  });

  it('refuse an xpub that is not at the account level', () => {
    assert.throws(() => depositAddresses('xpub-nope'), /not an extended public key/);
  });
});

describe('deposit keys from the mnemonic (the sweep)', () => {
  it('sign for exactly the addresses the xpub gives, and name their xpub', () => {
    const keys = depositKeys(DEPOSIT_MNEMONIC);
    assert.equal(keys.xpub, DEPOSIT_XPUB);
    const addresses = depositAddresses(DEPOSIT_XPUB);
    for (const index of [0, 1, 42]) assert.equal(keys.account(index).address, addresses.address(index));
  });

  it('refuse a mnemonic with a wrong word without echoing it', () => {
    const wrong = DEPOSIT_MNEMONIC.replace(/about$/, 'abandon');
    assert.throws(
      () => depositKeys(wrong),
      (error: Error) => /not a valid BIP-39/.test(error.message) && !error.message.includes('abandon'),
    );
  });
});
