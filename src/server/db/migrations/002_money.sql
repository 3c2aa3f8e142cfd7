-- Money in and money out: checkout sessions, the chain transfers paid into them, balances with
-- their ledger, withdrawals and the idempotency keys of withdrawal requests.
-- Amounts are NUMERIC(30, 6): exact, with the 6 decimals of USDT and CNGN.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

-- A quote for one payment of one link, in one asset, and what has been paid against it.
-- Statuses: awaiting_payment → underpaid → paid | overpaid, and awaiting_payment | underpaid → expired.
CREATE TABLE checkout_sessions (
  id uuid PRIMARY KEY,
  link_id uuid NOT NULL REFERENCES payment_links(id),
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  status text NOT NULL CHECK (status IN ('awaiting_payment', 'paid', 'underpaid', 'overpaid', 'expired')),
  fiat_amount numeric(30, 6) NOT NULL CHECK (fiat_amount > 0),
  fiat_currency text NOT NULL,
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  blockchain_id text NOT NULL,
  network_name text NOT NULL,
  crypto_amount numeric(30, 6) NOT NULL CHECK (crypto_amount > 0),
  paid_amount numeric(30, 6) NOT NULL DEFAULT 0 CHECK (paid_amount >= 0),
  -- Funds received after the session expired: credited to the balance, not counted as a payment.
  late_amount numeric(30, 6) NOT NULL DEFAULT 0 CHECK (late_amount >= 0),
  pay_address text NOT NULL,
  tx_hash text,
  customer_address text,
  customer_phone text,
  customer_email text,
  expires_at timestamptz NOT NULL,
  settled_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- A settled session (paid/overpaid) has received at least its amount, and only then.
  CHECK ((status IN ('paid', 'overpaid')) = (settled_at IS NOT NULL)),
  CHECK (status <> 'paid' OR paid_amount = crypto_amount),
  CHECK (status <> 'overpaid' OR paid_amount > crypto_amount),
  CHECK (status <> 'underpaid' OR (paid_amount > 0 AND paid_amount < crypto_amount))
);

CREATE UNIQUE INDEX checkout_sessions_pay_address ON checkout_sessions (blockchain_id, lower(pay_address));

-- What the expiry sweep scans.
CREATE INDEX checkout_sessions_open ON checkout_sessions (expires_at) WHERE status IN ('awaiting_payment', 'underpaid');

-- Every incoming transfer, once: a transaction hash is recorded at most once per network, so a
-- transfer reported twice (or simulated twice with the same hash) credits once.
CREATE TABLE chain_transfers (
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES checkout_sessions(id),
  blockchain_id text NOT NULL,
  tx_hash text NOT NULL,
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  amount numeric(30, 6) NOT NULL CHECK (amount > 0),
  to_address text NOT NULL,
  -- payment: counted toward the session; late_payment: arrived after expiry.
  kind text NOT NULL CHECK (kind IN ('payment', 'late_payment')),
  sandbox boolean NOT NULL,
  received_at timestamptz NOT NULL,
  UNIQUE (blockchain_id, tx_hash),
  UNIQUE (session_id, tx_hash)
);

-- One row per (integrator, asset). The CHECKs are the last line of defence: no code path can make
-- a balance negative even if a rule above it were wrong.
CREATE TABLE balances (
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  available numeric(30, 6) NOT NULL DEFAULT 0 CHECK (available >= 0),
  pending numeric(30, 6) NOT NULL DEFAULT 0 CHECK (pending >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (integrator_id, asset_id)
);

-- Withdrawals: funds move available → pending when requested, pending → out on success, and
-- pending → available when the payout fails.
CREATE TABLE withdrawals (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  amount numeric(30, 6) NOT NULL CHECK (amount > 0),
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  blockchain_id text NOT NULL,
  address text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'processing', 'success', 'failed')),
  tx_hash text,
  failure_reason text,
  sandbox boolean NOT NULL DEFAULT false,
  attempts integer NOT NULL DEFAULT 0,
  claimed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (status <> 'success' OR tx_hash IS NOT NULL),
  CHECK (status <> 'failed' OR failure_reason IS NOT NULL)
);

CREATE INDEX withdrawals_integrator_recent ON withdrawals (integrator_id, created_at DESC, id DESC);

-- What the payout workers claim from.
CREATE INDEX withdrawals_queue ON withdrawals (created_at) WHERE status IN ('pending', 'processing');

-- Every change of a balance, in the transaction that makes it. For each (integrator, asset):
-- sum(available_delta) = balances.available and sum(pending_delta) = balances.pending.
CREATE TABLE ledger_entries (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL,
  asset_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payment', 'late_payment', 'withdrawal_reserve', 'withdrawal_payout', 'withdrawal_release')),
  available_delta numeric(30, 6) NOT NULL,
  pending_delta numeric(30, 6) NOT NULL,
  transfer_id uuid REFERENCES chain_transfers(id),
  withdrawal_id uuid REFERENCES withdrawals(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (integrator_id, asset_id) REFERENCES balances(integrator_id, asset_id),
  CHECK ((transfer_id IS NULL) <> (withdrawal_id IS NULL))
);

-- A transfer is credited once; a withdrawal is reserved, paid out and released at most once each.
CREATE UNIQUE INDEX ledger_entries_transfer ON ledger_entries (transfer_id) WHERE transfer_id IS NOT NULL;
CREATE UNIQUE INDEX ledger_entries_withdrawal ON ledger_entries (withdrawal_id, kind) WHERE withdrawal_id IS NOT NULL;
CREATE INDEX ledger_entries_account ON ledger_entries (integrator_id, asset_id, created_at);

-- Idempotency-Key of POST /v1/withdrawal: the first request inserts the row (the unique key makes
-- concurrent twins wait for it), and its response is stored for replays.
CREATE TABLE idempotency_keys (
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  idempotency_key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer NOT NULL,
  response_body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (integrator_id, idempotency_key)
);
