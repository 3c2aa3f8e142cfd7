-- Real chains: deposit indexes, the `confirming` status, transfers seen on
-- chain before they count, the scanner's cursor, and the hot wallet's nonces and stored transactions.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

-- Deposit address n is child 0/n of PAYLINK_EVM_XPUB; n comes from this sequence. A sequence never
-- goes back, not even for a rolled-back session, so no two sessions are ever given one address.
CREATE SEQUENCE deposit_index_seq AS bigint MINVALUE 0 START WITH 0;

ALTER TABLE checkout_sessions ADD COLUMN deposit_index bigint;

CREATE UNIQUE INDEX checkout_sessions_deposit_index ON checkout_sessions (deposit_index);

-- `confirming`: a transfer to the session was seen on chain in time and waits for its confirmations.
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_status_check;

ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_status_check
  CHECK (status IN ('awaiting_payment', 'confirming', 'paid', 'underpaid', 'overpaid', 'expired'));

-- What the scanner watches: a network's sessions that are unsettled or closed recently.
CREATE INDEX checkout_sessions_watch ON checkout_sessions (blockchain_id, expires_at);

CREATE INDEX checkout_sessions_unsettled ON checkout_sessions (blockchain_id)
  WHERE status IN ('awaiting_payment', 'underpaid', 'confirming');

-- A credited transfer is keyed by network + transaction hash + log index (a transaction may pay
-- several sessions, or one session twice). The sandbox has no log index: one hash, one transfer.
ALTER TABLE chain_transfers DROP CONSTRAINT chain_transfers_blockchain_id_tx_hash_key;

ALTER TABLE chain_transfers DROP CONSTRAINT chain_transfers_session_id_tx_hash_key;

ALTER TABLE chain_transfers ADD COLUMN log_index integer;

CREATE UNIQUE INDEX chain_transfers_key ON chain_transfers (blockchain_id, tx_hash, (coalesce(log_index, -1)));

-- Transfers a real chain's scanner saw, from the first sight to their crediting (or their end).
-- Identity: (network, tx hash, token, recipient, ordinal). The log index is not part of it, because
-- a reorg that moves the transaction to another block changes its log index (and block), and the
-- moved transfer is still the same payment, to be credited once.
CREATE TABLE incoming_transfers (
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES checkout_sessions(id),
  blockchain_id text NOT NULL,
  tx_hash text NOT NULL,
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  token_address text NOT NULL,
  from_address text NOT NULL,
  to_address text NOT NULL,
  ordinal integer NOT NULL CHECK (ordinal >= 0),
  -- Exact, with all of the token's digits (an 18-decimal token keeps its 18).
  amount numeric NOT NULL CHECK (amount > 0),
  -- Where it is now; block_number and block_hash are null while its transaction is back in the mempool.
  log_index integer NOT NULL,
  block_number bigint,
  block_hash text,
  -- The time of the block it was first seen in: when the customer paid.
  block_time timestamptz NOT NULL,
  -- seen: waiting for its confirmations; credited: through settlement (transfer_id),
  -- gone: reorged out or re-mined reverted, never credited; ignored: below the ledger's 0.000001.
  status text NOT NULL CHECK (status IN ('seen', 'credited', 'gone', 'ignored')),
  confirmations integer NOT NULL DEFAULT 0 CHECK (confirmations >= 0),
  transfer_id uuid REFERENCES chain_transfers(id),
  seen_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'credited') = (transfer_id IS NOT NULL))
);

CREATE UNIQUE INDEX incoming_transfers_identity ON incoming_transfers (blockchain_id, tx_hash, lower(token_address), lower(to_address), ordinal);

CREATE INDEX incoming_transfers_session ON incoming_transfers (session_id);

CREATE INDEX incoming_transfers_waiting ON incoming_transfers (blockchain_id) WHERE status = 'seen';

-- The scanner's progress per network: blocks below next_block have been read. covered_until is the
-- service's clock when the last fully caught-up scan began: every transfer mined before it has been
-- seen, so an unpaid session whose quote ran out before it may expire (and not one before).
CREATE TABLE chain_cursors (
  blockchain_id text PRIMARY KEY,
  next_block bigint NOT NULL CHECK (next_block >= 0),
  covered_until timestamptz,
  updated_at timestamptz NOT NULL
);

-- The hot wallet's next nonce per network, taken under this row's lock (SELECT … FOR UPDATE) by the
-- payout workers of every instance and by `paylink sweep`'s gas top-ups, so none collide.
CREATE TABLE payout_nonces (
  blockchain_id text NOT NULL,
  -- Lowercase.
  address text NOT NULL,
  next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (blockchain_id, address)
);

-- Every transaction the hot wallet signs, stored with its nonce in the transaction that takes the
-- nonce, before it is broadcast: a retry (or a restart after a crash) re-sends these bytes, so a
-- withdrawal is never paid by a second transaction.
-- Statuses: signed (stored, no node has taken it yet) → sent → mined (fewer than N confirmations)
-- → success | reverted (final at N); replaced: its nonce was used by another transaction of the
-- wallet, so it can never be mined; rejected: the node refused it for good (a filler takes its nonce).
CREATE TABLE payout_transactions (
  id uuid PRIMARY KEY,
  blockchain_id text NOT NULL,
  -- Lowercase.
  from_address text NOT NULL,
  nonce bigint NOT NULL CHECK (nonce >= 0),
  purpose text NOT NULL CHECK (purpose IN ('withdrawal', 'gas_top_up', 'nonce_filler')),
  withdrawal_id uuid REFERENCES withdrawals(id),
  to_address text NOT NULL,
  raw_transaction text NOT NULL,
  -- Known before broadcast: keccak-256 of raw_transaction.
  tx_hash text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('signed', 'sent', 'mined', 'success', 'reverted', 'replaced', 'rejected')),
  confirmations integer NOT NULL DEFAULT 0,
  block_number bigint,
  broadcasts integer NOT NULL DEFAULT 0,
  last_broadcast_at timestamptz,
  checked_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((purpose = 'withdrawal') = (withdrawal_id IS NOT NULL))
);

-- One live transaction per nonce, and per withdrawal.
CREATE UNIQUE INDEX payout_transactions_nonce ON payout_transactions (blockchain_id, from_address, nonce)
  WHERE status NOT IN ('replaced', 'rejected');

CREATE UNIQUE INDEX payout_transactions_withdrawal ON payout_transactions (withdrawal_id)
  WHERE status NOT IN ('replaced', 'rejected');

-- What the payout workers follow.
CREATE INDEX payout_transactions_open ON payout_transactions (blockchain_id, nonce) WHERE status IN ('signed', 'sent', 'mined');
