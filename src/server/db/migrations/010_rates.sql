-- The last quoted rate of each code (units per US dollar: `NGN` 1612.4, `USDT` 0.9998), shared by every
-- instance so that they agree on what a move is: a quorum value further than PAYLINK_RATES_MAX_MOVE from
-- `quoted_value` is held (`held_value`, since `held_since`) until it has lasted PAYLINK_RATES_CONFIRM_S
-- or an operator runs `paylink rates accept <pair>` (`accepted_at`), and is then quoted. Written only
-- by the rates room, under a lock of this table, one refresh at a time.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).
CREATE TABLE quoted_rates (
  code text PRIMARY KEY,
  quoted_value numeric NOT NULL CHECK (quoted_value > 0),
  quoted_at timestamptz NOT NULL,
  held_value numeric CHECK (held_value > 0),
  held_since timestamptz,
  accepted_at timestamptz,
  CHECK ((held_value IS NULL) = (held_since IS NULL))
);

-- What each session's quote was made of, so that it can be audited: per code of its pair (but USD),
-- the value quoted, the quorum and spread it needed, and every source's value then, used or not.
ALTER TABLE checkout_sessions ADD COLUMN rate_basis jsonb;
