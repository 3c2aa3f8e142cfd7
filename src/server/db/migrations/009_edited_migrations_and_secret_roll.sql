-- Two things: the schema that three migrations gained by being edited after they shipped, for the
-- databases that applied their first text; and a webhook endpoint's previous secret while it is rolled.
--
-- 001_payment_links.sql, 005_orders.sql and 007_networks.sql were each edited in place after they
-- shipped, and the migrator applied files by name alone: a database that applied a first text never got
-- what the edit added. Every statement below is a no-op where the schema already has it, so a database
-- that applied either text of each file ends with the same schema (see EARLIER_TEXTS in ../migrate.ts).

-- 001: the list's per-integrator sequence and kept counts.
ALTER TABLE integrators ADD COLUMN IF NOT EXISTS link_seq bigint NOT NULL DEFAULT 0;

ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS seq bigint;

-- Numbered in creation order, as the service numbers new links.
UPDATE payment_links AS link SET seq = numbered.seq
FROM (SELECT id, row_number() OVER (PARTITION BY integrator_id ORDER BY created_at, id) AS seq FROM payment_links) AS numbered
WHERE link.id = numbered.id AND link.seq IS NULL;

UPDATE integrators AS integrator SET link_seq = last.seq
FROM (SELECT integrator_id, max(seq) AS seq FROM payment_links GROUP BY integrator_id) AS last
WHERE integrator.id = last.integrator_id AND integrator.link_seq < last.seq;

ALTER TABLE payment_links ALTER COLUMN seq SET NOT NULL;

CREATE UNIQUE INDEX IF NOT EXISTS payment_links_integrator_seq ON payment_links (integrator_id, seq);

DROP INDEX IF EXISTS payment_links_integrator_recent;

-- The counts start from the live links when the table is new; where it was there, it is already kept.
DO $repair_001$
BEGIN
  IF to_regclass('integrator_link_counts') IS NULL THEN
    CREATE TABLE integrator_link_counts (
      integrator_id uuid NOT NULL REFERENCES integrators(id),
      link_type text NOT NULL,
      is_active boolean NOT NULL,
      n bigint NOT NULL DEFAULT 0 CHECK (n >= 0),
      PRIMARY KEY (integrator_id, link_type, is_active)
    );
    INSERT INTO integrator_link_counts (integrator_id, link_type, is_active, n)
      SELECT integrator_id, link_type, is_active, count(*) FROM payment_links WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
  END IF;
END
$repair_001$;

-- 005: the orders a shop creates, and a session's order.
DO $repair_005$
BEGIN
  IF to_regclass('orders') IS NULL THEN
    CREATE TABLE orders (
      id uuid PRIMARY KEY,
      integrator_id uuid NOT NULL REFERENCES integrators(id),
      reference text NOT NULL CHECK (reference <> ''),
      status text NOT NULL CHECK (status IN ('open', 'paid', 'expired', 'cancelled')),
      url text NOT NULL,
      title text NOT NULL,
      description text NOT NULL,
      fiat_amount numeric(30, 6) NOT NULL CHECK (fiat_amount > 0),
      fiat_currency text NOT NULL,
      cart_items jsonb NOT NULL DEFAULT '[]'::jsonb,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      collect_address boolean NOT NULL,
      collect_phone boolean NOT NULL,
      success_message text NOT NULL,
      redirect_url text NOT NULL,
      show_confirmation_page boolean NOT NULL,
      expires_at timestamptz NOT NULL,
      paid_session_id uuid,
      paid_at timestamptz,
      cancelled_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((status = 'paid') = (paid_session_id IS NOT NULL)),
      CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
      CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
    );
    CREATE UNIQUE INDEX orders_open_reference ON orders (integrator_id, reference) WHERE status = 'open';
    CREATE INDEX orders_integrator_recent ON orders (integrator_id, created_at DESC, id DESC);
    CREATE INDEX orders_status_recent ON orders (integrator_id, status, created_at DESC, id DESC);
    CREATE INDEX orders_reference ON orders (integrator_id, reference, created_at DESC);
    CREATE INDEX orders_open_expiry ON orders (expires_at) WHERE status = 'open';
  END IF;
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'checkout_sessions' AND column_name = 'order_id'
  ) THEN
    ALTER TABLE checkout_sessions ADD COLUMN order_id uuid REFERENCES orders(id);
    ALTER TABLE checkout_sessions ALTER COLUMN link_id DROP NOT NULL;
    ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_link_or_order CHECK ((link_id IS NULL) <> (order_id IS NULL));
    CREATE INDEX checkout_sessions_order ON checkout_sessions (order_id, created_at DESC) WHERE order_id IS NOT NULL;
    ALTER TABLE orders ADD CONSTRAINT orders_paid_session FOREIGN KEY (paid_session_id) REFERENCES checkout_sessions(id);
  END IF;
END
$repair_005$;

-- 007: what the recipient of a payout received.
ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS received_amount numeric;

-- A rolled webhook secret: the one it replaced keeps signing deliveries (beside the new one) until
-- `previous_secret_expires_at`, so the merchant's receiver can move to the new secret meanwhile.
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text;

ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at timestamptz;

ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_previous_secret
  CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));
