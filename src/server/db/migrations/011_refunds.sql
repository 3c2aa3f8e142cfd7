-- Refunds and resolutions: money a merchant gives back to a customer for a payment (all of it, part
-- of it, or what was paid too much), paid out like a withdrawal, and a merchant's acceptance of an
-- underpaid or late payment as paid. Statements are separated by a `;` at the end of a line (see
-- migrate() in ../migrate.ts).

-- A refund of one checkout session, on the network the session was paid on, in its asset. Its amount
-- leaves the merchant's available balance when it is made (`refund_reserve`), before anyone knows
-- where it goes. Statuses kept here: `awaiting_address` (the customer claims it with the token of its
-- link, which is stored only as a SHA-256 digest, and sealed under the API key that made it so that
-- key can show the link again: the database alone can't), `cancelled` (by the merchant, before an
-- address was given: its amount is back), `paying` (its payout is the withdrawal whose `refund_id`
-- names it: pending or processing as that withdrawal is), then `success` or `failed` (its amount is
-- back), written in the transaction that finishes the payout.
CREATE TABLE refunds (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  session_id uuid NOT NULL REFERENCES checkout_sessions(id),
  order_id uuid REFERENCES orders(id),
  asset_id text NOT NULL CHECK (asset_id IN ('USDT', 'CNGN')),
  blockchain_id text NOT NULL,
  amount numeric(30, 6) NOT NULL CHECK (amount > 0),
  address text,
  status text NOT NULL CHECK (status IN ('awaiting_address', 'cancelled', 'paying', 'success', 'failed')),
  claim_token_hash text,
  claim_token_sealed text,
  reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (status NOT IN ('paying', 'success', 'failed') OR address IS NOT NULL),
  CHECK (status <> 'awaiting_address' OR (address IS NULL AND claim_token_hash IS NOT NULL))
);

CREATE INDEX refunds_integrator_recent ON refunds (integrator_id, created_at DESC, id DESC);

CREATE INDEX refunds_session ON refunds (session_id);

CREATE INDEX refunds_order ON refunds (order_id) WHERE order_id IS NOT NULL;

-- A refund's payout: a withdrawal the payout workers pay like any other (one nonce, one stored signed
-- transaction), whose funds the refund's own entry already moved to pending. At most one per refund.
ALTER TABLE withdrawals ADD COLUMN refund_id uuid REFERENCES refunds(id);

CREATE UNIQUE INDEX withdrawals_refund ON withdrawals (refund_id) WHERE refund_id IS NOT NULL;

-- The refund kinds: refund_reserve (available → pending, when the refund is made), refund_payout (its
-- payout went out: pending → gone), refund_release (it failed or was cancelled: pending → available).
ALTER TABLE ledger_entries ADD COLUMN refund_id uuid REFERENCES refunds(id);

ALTER TABLE ledger_entries DROP CONSTRAINT IF EXISTS ledger_entries_kind_check;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('payment', 'late_payment', 'payment_final', 'payment_reversal', 'withdrawal_reserve', 'withdrawal_payout', 'withdrawal_release', 'refund_reserve', 'refund_payout', 'refund_release'));

-- An entry is about a transfer or a withdrawal, as before; a refund's entries name the refund (and,
-- once it is paid out or fails, its payout's withdrawal too).
ALTER TABLE ledger_entries DROP CONSTRAINT IF EXISTS ledger_entries_check;

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_subject
  CHECK (CASE WHEN refund_id IS NOT NULL THEN transfer_id IS NULL ELSE (transfer_id IS NULL) <> (withdrawal_id IS NULL) END);

ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_refund_kind
  CHECK ((kind IN ('refund_reserve', 'refund_payout', 'refund_release')) = (refund_id IS NOT NULL));

-- A refund is reserved, paid out and released at most once each.
CREATE UNIQUE INDEX ledger_entries_refund ON ledger_entries (refund_id, kind) WHERE refund_id IS NOT NULL;

-- A merchant accepted an underpaid or late-paid session as paid (`merchant`), when, and why (its words).
ALTER TABLE checkout_sessions ADD COLUMN resolution text CHECK (resolution IN ('merchant'));

ALTER TABLE checkout_sessions ADD COLUMN resolved_at timestamptz;

ALTER TABLE checkout_sessions ADD COLUMN resolution_reason text;

ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_resolved CHECK ((resolution IS NULL) = (resolved_at IS NULL));

-- An order paid by such a resolution says so.
ALTER TABLE orders ADD COLUMN resolution text CHECK (resolution IN ('merchant'));
