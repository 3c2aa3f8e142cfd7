/**
 * Compiles the test ERC-20s (scripts/test-token.sol, and the fee-charging scripts/fee-test-token.sol)
 * with the solc npm package (offline: it bundles its compiler) into src/server/chain/evm/test-token.json
 * and fee-test-token.json, which are committed: tests and the demo deploy from those files and never
 * compile. Run after changing a contract:
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
const EVM_VERSION = 'paris';
/** Each contract: its source file (in scripts/), its name, and its artifact (in src/server/chain/evm/). */
const CONTRACTS = [
  { source: 'test-token.sol', contractName: 'TestToken', output: 'test-token.json' },
  { source: 'fee-test-token.sol', contractName: 'FeeTestToken', output: 'fee-test-token.json' },
];

interface Output {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

for (const { source, contractName, output: file } of CONTRACTS) {
  const input = {
    language: 'Solidity',
    sources: { [source]: { content: readFileSync(path.join(ROOT, 'scripts', source), 'utf8') } },
    settings: {
      evmVersion: EVM_VERSION,
      optimizer: { enabled: true, runs: 200 },
      // No metadata hash: the bytecode then depends on the source alone, so a re-run is byte-identical.
      metadata: { bytecodeHash: 'none' },
      outputSelection: { '*': { [contractName]: ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as Output;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  for (const message of output.errors ?? []) process.stderr.write(message.formattedMessage);
  if (errors.length) process.exit(1);

  const contract = output.contracts[source]![contractName]!;
  const artifact = {
    contractName,
    compiler: `solc ${solc.version()}`,
    evmVersion: EVM_VERSION,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
  };
  const target = path.join(ROOT, 'src', 'server', 'chain', 'evm', file);
  writeFileSync(target, `${JSON.stringify(artifact, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(ROOT, target)} (${contract.evm.bytecode.object.length / 2} bytes of bytecode)\n`);
}
