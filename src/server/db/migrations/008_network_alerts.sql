-- What an operator must be told about a network until it is mended, one row per network and kind:
-- `reconciliation_mismatch` (a deposit address holds what the ledger can't explain), `hot_wallet_low`
-- (the hot wallet is short of tokens or gas for what it owes), `chain_finality_violated` (a block the
-- service held as final has another hash now: payouts on the network stop until an operator resumes
-- them). A row is raised once and updated while it holds; it is deleted when the condition ends.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).
CREATE TABLE network_alerts (
  blockchain_id text NOT NULL,
  code text NOT NULL CHECK (code IN ('reconciliation_mismatch', 'hot_wallet_low', 'chain_finality_violated')),
  message text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb,
  raised_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (blockchain_id, code)
);

-- Why a withdrawal that is not finished is held up, while it is (null otherwise): the hot wallet
-- lacks gas or tokens, no node answers, or payouts on its network are halted.
ALTER TABLE withdrawals ADD COLUMN stalled_reason text
  CHECK (stalled_reason IN ('hot_wallet_gas', 'hot_wallet_token', 'node_unavailable', 'chain_halted'));
