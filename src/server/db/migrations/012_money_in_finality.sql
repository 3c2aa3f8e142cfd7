-- Money in that survives inconsistent nodes and reorganizations past finality, and a session paid on
-- any configured network: when a session's money became final, which network paid it, a credit that is
-- reversed after it was final, and the debt such a reversal leaves when its funds were withdrawn already.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

-- When every transfer counted toward a settled session was final (its funds available): the
-- `checkout.session.finalized` event. Sessions settled before this migration whose transfers are all
-- final take the time of the last one.
ALTER TABLE checkout_sessions ADD COLUMN finalized_at timestamptz;

UPDATE checkout_sessions s SET finalized_at = f.final_at
  FROM (SELECT session_id, max(final_at) AS final_at, bool_and(final_at IS NOT NULL) AS all_final
        FROM chain_transfers WHERE kind = 'payment' AND reversed_at IS NULL GROUP BY session_id) f
  WHERE f.session_id = s.id AND f.all_final AND s.status IN ('paid', 'overpaid');

-- The network of the transfer `tx_hash` names (the last one counted toward the session): a deposit
-- address is the same on every network, and a customer may pay on another configured network than the
-- one quoted. Null until a transfer counts.
ALTER TABLE checkout_sessions ADD COLUMN paid_blockchain_id text;

UPDATE checkout_sessions SET paid_blockchain_id = blockchain_id WHERE tx_hash IS NOT NULL;

-- Every network's scanner watches the addresses of every open session, whatever network it was quoted on.
CREATE INDEX checkout_sessions_address ON checkout_sessions (lower(pay_address));

CREATE INDEX checkout_sessions_expiry ON checkout_sessions (expires_at);

-- The blocks of credited transfers, checked against the node: those held final above the checkpoint
-- while the scanner runs, and every one above a reorganization past finality when it is resumed.
CREATE INDEX incoming_transfers_credited_block ON incoming_transfers (blockchain_id, block_number) WHERE status = 'credited';

-- A credit final on a chain that was then reorganized past finality is reversed when an operator
-- resumes the network (`paylink chain resume`): final first, reversed after.
ALTER TABLE chain_transfers DROP CONSTRAINT chain_transfers_final_or_reversed;

-- What a reversal of final funds took beyond the available balance (they had been withdrawn): the
-- balance owes it, `available` is negative by that much, and later payments repay it before anything
-- can be withdrawn. `available` may be below zero only by what such a reversal left owing, and never
-- lower after: every other change keeps it at or above -owed, and owed shrinks as it is repaid.
ALTER TABLE balances ADD COLUMN owed numeric(30, 6) NOT NULL DEFAULT 0 CHECK (owed >= 0);

ALTER TABLE balances DROP CONSTRAINT network_balances_available_check;

ALTER TABLE balances ADD CONSTRAINT balances_available_check CHECK (available >= -owed);
