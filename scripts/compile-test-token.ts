/**
 * Compiles the test ERC-20 (scripts/test-token.sol) with the solc npm package (offline: it bundles
 * its compiler) into src/server/chain/evm/test-token.json, which is committed: tests and the demo
 * deploy from that file and never compile. Run after changing the contract:
 *
 *   node --import tsx scripts/compile-test-token.ts
 *
 * The EVM target is `paris` (no PUSH0), so the bytecode also runs on chains and anvil hardforks
 * from before Shanghai, such as a legacy-fee (pre-London) test chain.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import solc from 'solc';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE = path.join(ROOT, 'scripts', 'test-token.sol');
const OUTPUT = path.join(ROOT, 'src', 'server', 'chain', 'evm', 'test-token.json');
const EVM_VERSION = 'paris';

const input = {
  language: 'Solidity',
  sources: { 'test-token.sol': { content: readFileSync(SOURCE, 'utf8') } },
  settings: {
    evmVersion: EVM_VERSION,
    optimizer: { enabled: true, runs: 200 },
    // No metadata hash: the bytecode then depends on the source alone, so a re-run is byte-identical.
    metadata: { bytecodeHash: 'none' },
    outputSelection: { '*': { TestToken: ['abi', 'evm.bytecode.object'] } },
  },
};

interface Output {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output;
const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
for (const message of output.errors ?? []) process.stderr.write(message.formattedMessage);
if (errors.length) process.exit(1);

const contract = output.contracts['test-token.sol']!.TestToken!;
const artifact = {
  contractName: 'TestToken',
  compiler: `solc ${solc.version()}`,
  evmVersion: EVM_VERSION,
  abi: contract.abi,
  bytecode: `0x${contract.evm.bytecode.object}`,
};
writeFileSync(OUTPUT, `${JSON.stringify(artifact, null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(ROOT, OUTPUT)} (${contract.evm.bytecode.object.length / 2} bytes of bytecode)\n`);
