-- What each session was quoted with (the rates room's book at the session's start): `rate` is asset
-- units per one unit of the fiat currency, `rate_source` the sources behind it (`coingecko+coinbase`,
-- `static`, `coinbase+peg:CNGN=NGN`), `rate_at` when the oldest value behind it was fetched. Sessions
-- quoted before this migration have none. Statements are separated by a `;` at the end of a line.
ALTER TABLE checkout_sessions ADD COLUMN rate numeric CHECK (rate > 0);
ALTER TABLE checkout_sessions ADD COLUMN rate_source text;
ALTER TABLE checkout_sessions ADD COLUMN rate_at timestamptz;
