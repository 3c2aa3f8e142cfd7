-- Fundraisers: a donation link's goal, what its donations raised, and the donors who chose to be shown.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

-- The goal of a donation link, in its price currency (null: no goal; never on a Standard link).
ALTER TABLE payment_links ADD COLUMN goal_amount numeric(30, 6) CHECK (goal_amount > 0);

-- What a donor gave their gift with, at the start of its session: a name and a message, shown on the
-- link's page only when `show_publicly`, and never once the merchant hid them (`donor_hidden_at`).
ALTER TABLE checkout_sessions ADD COLUMN donor_name text;
ALTER TABLE checkout_sessions ADD COLUMN donor_message text;
ALTER TABLE checkout_sessions ADD COLUMN show_publicly boolean NOT NULL DEFAULT false;
ALTER TABLE checkout_sessions ADD COLUMN donor_hidden_at timestamptz;

-- What a donation session counts toward its fundraiser once it is paid: its amount in the link's price
-- currency as quoted (the donor's own amount, or converted at the quote's rates when the donor gave in
-- another of the link's currencies); null on a Standard link's or an order's session.
ALTER TABLE checkout_sessions ADD COLUMN raise_amount numeric(30, 6) CHECK (raise_amount > 0);
ALTER TABLE checkout_sessions ADD COLUMN raise_currency text;

-- The running totals of a link's paid (and overpaid) donations, per price currency: kept in the
-- transaction that settles a session (+) or reverses its payment (−), so a public view reads one row
-- instead of summing the link's sessions. A link whose price currency changed starts a new row.
CREATE TABLE link_fundraising (
  link_id uuid NOT NULL REFERENCES payment_links(id),
  currency text NOT NULL,
  raised numeric(30, 6) NOT NULL DEFAULT 0 CHECK (raised >= 0),
  donors integer NOT NULL DEFAULT 0 CHECK (donors >= 0),
  PRIMARY KEY (link_id, currency)
);

-- GET /v1/checkout/{slug}/donors: a link's paid donations whose donor chose to be shown, newest first.
CREATE INDEX checkout_sessions_public_donors ON checkout_sessions (link_id, settled_at DESC)
  WHERE show_publicly AND donor_hidden_at IS NULL AND status IN ('paid', 'overpaid');
