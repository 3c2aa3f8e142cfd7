-- Reconciliation: the books of each deposit address proved against the chain. What `paylink sweep`
-- moved out of deposit addresses (so a sweep is money out of the address, not a hole in it), which
-- instance reconciles a network and where the last run stood, and the addresses whose balance the
-- books cannot explain.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

-- One row per token transfer `paylink sweep` signed out of a deposit address, written before it is
-- broadcast (so a sweep killed right after sending is still known), then settled from its receipt:
-- sent → success | reverted, or dropped (another transaction took its nonce: never mined).
CREATE TABLE deposit_sweeps (
  blockchain_id text NOT NULL,
  -- Lowercase; known before broadcast.
  tx_hash text NOT NULL,
  deposit_index bigint NOT NULL,
  -- Lowercase.
  address text NOT NULL,
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  -- Lowercase.
  token_address text NOT NULL,
  -- Exact, with all of the token's digits: what leaves the address when it succeeds.
  amount numeric NOT NULL CHECK (amount > 0),
  status text NOT NULL CHECK (status IN ('sent', 'success', 'reverted', 'dropped')),
  block_number bigint,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (blockchain_id, tx_hash),
  CHECK ((status IN ('success', 'reverted')) = (block_number IS NOT NULL))
);

CREATE INDEX deposit_sweeps_address ON deposit_sweeps (blockchain_id, address);

CREATE INDEX deposit_sweeps_unsettled ON deposit_sweeps (blockchain_id) WHERE status = 'sent';

-- Per network: when the next run is due and who holds the current one (claimed by one UPDATE, so
-- among many instances one reconciles a network per interval; a claim that is not released, an
-- instance that died mid-run, lapses at claimed_until), and the last completed run: the final block
-- it read balances at and when it read the books (a session created before that was reconciled at
-- that block).
CREATE TABLE reconciliation_runs (
  blockchain_id text PRIMARY KEY,
  next_run_at timestamptz NOT NULL,
  claimed_until timestamptz,
  last_block bigint,
  last_started_at timestamptz,
  last_finished_at timestamptz,
  last_addresses integer,
  last_mismatches integer,
  updated_at timestamptz NOT NULL
);

-- A deposit address whose balance of its session's asset, at a final block, is not what the books
-- say (credited − swept): raised once (the log line and the `reconciliation.mismatch` webhook go out
-- then), refreshed while it holds, deleted when a later run finds them equal. A session deleted by
-- retention takes its row along.
CREATE TABLE reconciliation_mismatches (
  blockchain_id text NOT NULL,
  -- Lowercase.
  address text NOT NULL,
  session_id uuid NOT NULL REFERENCES checkout_sessions(id) ON DELETE CASCADE,
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  -- Exact decimals with all of the token's digits: what the books say, what the chain holds.
  expected numeric NOT NULL,
  actual numeric NOT NULL,
  -- The final block the balance was read at, and where a trace found the change it could not explain.
  block bigint NOT NULL,
  traced_block bigint,
  reason text NOT NULL,
  raised_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (blockchain_id, address)
);
