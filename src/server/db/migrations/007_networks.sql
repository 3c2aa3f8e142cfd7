-- Several networks, real nodes and finality: balances per asset AND network, a credit that stays
-- pending until its block is final (or is reversed when a reorg takes it back first), what a payout
-- really delivered, and what the service knows of each network's chain (its id and a final block),
-- so that a database is never used with another or a reset chain.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../index.ts).

-- Every ledger entry names its network: an existing one takes it from its transfer or withdrawal.
ALTER TABLE ledger_entries ADD COLUMN blockchain_id text;

UPDATE ledger_entries e SET blockchain_id = t.blockchain_id FROM chain_transfers t WHERE e.transfer_id = t.id;

UPDATE ledger_entries e SET blockchain_id = w.blockchain_id FROM withdrawals w WHERE e.withdrawal_id = w.id;

ALTER TABLE ledger_entries ALTER COLUMN blockchain_id SET NOT NULL;

-- Balances per (integrator, asset, network), rebuilt from the ledger they always equal.
CREATE TABLE network_balances (
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  blockchain_id text NOT NULL,
  available numeric(30, 6) NOT NULL DEFAULT 0 CHECK (available >= 0),
  pending numeric(30, 6) NOT NULL DEFAULT 0 CHECK (pending >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (integrator_id, asset_id, blockchain_id)
);

INSERT INTO network_balances (integrator_id, asset_id, blockchain_id, available, pending)
  SELECT integrator_id, asset_id, blockchain_id, sum(available_delta), sum(pending_delta) FROM ledger_entries GROUP BY integrator_id, asset_id, blockchain_id;

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_integrator_id_asset_id_fkey;

DROP TABLE balances;

ALTER TABLE network_balances RENAME TO balances;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_balance_fkey
  FOREIGN KEY (integrator_id, asset_id, blockchain_id) REFERENCES balances (integrator_id, asset_id, blockchain_id);

DROP INDEX ledger_entries_account;

CREATE INDEX ledger_entries_account ON ledger_entries (integrator_id, asset_id, blockchain_id, created_at);

-- payment_final: a credited transfer's block is final (pending → available); payment_reversal: a
-- reorg took the credited transfer back before that (pending → gone). Each once per transfer.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('payment', 'late_payment', 'payment_final', 'payment_reversal', 'withdrawal_reserve', 'withdrawal_payout', 'withdrawal_release'));

DROP INDEX ledger_entries_transfer;

CREATE UNIQUE INDEX ledger_entries_transfer ON ledger_entries (transfer_id, kind) WHERE transfer_id IS NOT NULL;

-- A credited transfer is final (its funds available) or reversed (gone), at most one of them. What
-- a real chain credited before this migration was available at once: it counts as final.
ALTER TABLE chain_transfers ADD COLUMN final_at timestamptz;

ALTER TABLE chain_transfers ADD COLUMN reversed_at timestamptz;

UPDATE chain_transfers SET final_at = received_at;

ALTER TABLE chain_transfers ADD CONSTRAINT chain_transfers_final_or_reversed CHECK (final_at IS NULL OR reversed_at IS NULL);

-- A reversed transfer no longer holds its key: if its transaction is mined again, it is credited again.
DROP INDEX chain_transfers_key;

CREATE UNIQUE INDEX chain_transfers_key ON chain_transfers (blockchain_id, tx_hash, (coalesce(log_index, -1))) WHERE reversed_at IS NULL;

CREATE INDEX chain_transfers_unfinal ON chain_transfers (blockchain_id) WHERE final_at IS NULL AND reversed_at IS NULL;

-- reversed: a credited transfer that a reorg took back before it was final.
ALTER TABLE incoming_transfers DROP CONSTRAINT incoming_transfers_status_check;

ALTER TABLE incoming_transfers ADD CONSTRAINT incoming_transfers_status_check CHECK (status IN ('seen', 'credited', 'reversed', 'gone', 'ignored'));

ALTER TABLE incoming_transfers DROP CONSTRAINT incoming_transfers_check;

ALTER TABLE incoming_transfers ADD CONSTRAINT incoming_transfers_check CHECK ((status IN ('credited', 'reversed')) = (transfer_id IS NOT NULL));

-- A session whose payment a reorg took back before it was final: `reversed` (terminal), with what
-- was taken back. A late payment's reversal keeps the session's status and counts here too.
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_status_check;

ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_status_check
  CHECK (status IN ('awaiting_payment', 'confirming', 'paid', 'underpaid', 'overpaid', 'expired', 'reversed'));

ALTER TABLE checkout_sessions ADD COLUMN reversed_amount numeric(30, 6) NOT NULL DEFAULT 0 CHECK (reversed_amount >= 0);

-- What the recipient of a payout received according to its receipt's Transfer logs (less than
-- `amount` with a fee-charging token). Null until the payout succeeded.
ALTER TABLE withdrawals ADD COLUMN received_amount numeric;

-- What the service knows of each network's chain: the chain id it was first used with, and a final
-- block it read (number and hash). At start both must match the node's, or the service refuses to
-- run: another chain, or a reset one, would miss payments and stall payouts on a nonce gap.
CREATE TABLE chain_networks (
  blockchain_id text PRIMARY KEY,
  chain_id bigint NOT NULL,
  checkpoint_block bigint,
  checkpoint_hash text,
  updated_at timestamptz NOT NULL,
  CHECK ((checkpoint_block IS NULL) = (checkpoint_hash IS NULL))
);
