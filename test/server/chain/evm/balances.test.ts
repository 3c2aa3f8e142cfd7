/**
 * The Multicall3 codec reconciliation reads balances with: its hand-written encoding of
 * `aggregate3(balanceOf…)` is byte for byte viem's, and its reading of the answer is viem's, failures
 * and empty answers included; anything else is not taken for an answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeFunctionData, encodeFunctionResult, getAddress, multicall3Abi, type Hex } from 'viem';
import { decodeAggregate, encodeBalanceAggregate } from '../../../../src/server/chain/evm/balances.js';

const TOKENS = ['0x55d398326f99059fF775485246999027B3197955', '0x1111111111111111111111111111111111111111'] as const;

describe('Multicall3 balance reads', () => {
  it('encodes aggregate3 of balanceOf calls exactly as viem does, whatever the case of the addresses', () => {
    const calls = Array.from({ length: 37 }, (_, i) => [TOKENS[i % 2]!, getAddress(`0x${(i * 7919).toString(16).padStart(40, 'a')}`)] as const);
    const expected = encodeFunctionData({
      abi: multicall3Abi,
      functionName: 'aggregate3',
      args: [calls.map(([target, holder]) => ({ target, allowFailure: true, callData: `0x70a08231${'0'.repeat(24)}${holder.slice(2).toLowerCase()}` as Hex }))],
    });
    assert.equal(encodeBalanceAggregate(calls), expected);
    assert.equal(encodeBalanceAggregate(calls.map(([t, h]) => [t.toUpperCase().replace('0X', '0x'), h.toLowerCase()] as const)), expected);
  });

  it('reads what aggregate3 answers as viem does: successes, failures and empty answers; nothing from what is not one', () => {
    const results = Array.from({ length: 23 }, (_, i) => ({
      success: i % 5 !== 3,
      returnData: (i % 4 === 0
        ? '0x'
        : `0x${BigInt(i * 1e15)
            .toString(16)
            .padStart(64, '0')}`) as Hex,
    }));
    assert.deepEqual(decodeAggregate(encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: results })), results);
    assert.deepEqual(decodeAggregate(encodeFunctionResult({ abi: multicall3Abi, functionName: 'aggregate3', result: [] })), []);
    for (const answer of ['0x', '0x1234', `0x${'0'.repeat(63)}2`, `0x${'0'.repeat(62)}20${'0'.repeat(62)}05`])
      assert.equal(decodeAggregate(answer), null, answer);
  });
});
