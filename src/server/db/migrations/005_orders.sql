-- Orders a shop creates, and what a page may say about a payment. Statements are separated by a `;`
-- at the end of a line (see migrate() in ../index.ts).

-- A session's `reference` is the merchant's: only an order (created with the API key) sets it. What a
-- keyless session start sends is what the page said, which anyone can change: `client_reference`.
ALTER TABLE checkout_sessions ADD COLUMN client_reference text;

-- Every reference stored so far came from a keyless start (there was no other way to set one), so it
-- was the page's word, never the merchant's: it moves to `client_reference`.
UPDATE checkout_sessions SET client_reference = reference, reference = NULL WHERE reference IS NOT NULL;

-- An order a shop created with its API key: its own price for its own cart, named by its reference.
-- Statuses: open → paid (the first session that settles it) | cancelled (by the merchant) | expired
-- (past expires_at, once none of its sessions can still be paid).
CREATE TABLE orders (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  reference text NOT NULL CHECK (reference <> ''),
  status text NOT NULL CHECK (status IN ('open', 'paid', 'expired', 'cancelled')),
  -- Its hosted checkout page, `{paylink_url}/order/<id>` as configured when it was created.
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
  -- The session whose payment settled it: one, ever.
  paid_session_id uuid,
  paid_at timestamptz,
  cancelled_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status = 'paid') = (paid_session_id IS NOT NULL)),
  CHECK ((status = 'paid') = (paid_at IS NOT NULL)),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
);

-- One open order per reference and integrator: a second create while the first is open is refused by
-- the database itself, whatever races.
CREATE UNIQUE INDEX orders_open_reference ON orders (integrator_id, reference) WHERE status = 'open';

-- GET /v1/order: newest first, and narrowed to a status or a reference.
CREATE INDEX orders_integrator_recent ON orders (integrator_id, created_at DESC, id DESC);
CREATE INDEX orders_status_recent ON orders (integrator_id, status, created_at DESC, id DESC);
CREATE INDEX orders_reference ON orders (integrator_id, reference, created_at DESC);

-- What the expiry sweep scans.
CREATE INDEX orders_open_expiry ON orders (expires_at) WHERE status = 'open';

-- A session pays a link or an order, never both.
ALTER TABLE checkout_sessions ADD COLUMN order_id uuid REFERENCES orders(id);

ALTER TABLE checkout_sessions ALTER COLUMN link_id DROP NOT NULL;

ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_link_or_order CHECK ((link_id IS NULL) <> (order_id IS NULL));

CREATE INDEX checkout_sessions_order ON checkout_sessions (order_id, created_at DESC) WHERE order_id IS NOT NULL;

ALTER TABLE orders ADD CONSTRAINT orders_paid_session FOREIGN KEY (paid_session_id) REFERENCES checkout_sessions(id);
