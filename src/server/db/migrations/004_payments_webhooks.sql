-- The merchant's payments and webhooks: a session's reference and metadata, the indexes of
-- the keyed session list and of retention, and the webhook endpoints, the events (the outbox) and
-- their deliveries. Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

-- The merchant's order id and string pairs, set by the checkout (the element's `reference` and `metadata`).
ALTER TABLE checkout_sessions ADD COLUMN reference text;
ALTER TABLE checkout_sessions ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'::jsonb;

-- GET /v1/checkout-session: one integrator's sessions, newest first, and the same narrowed to one
-- link, one status or one reference (each filter the leading column after the integrator, so a
-- page of a filtered list reads only its rows).
CREATE INDEX checkout_sessions_integrator_recent ON checkout_sessions (integrator_id, created_at DESC, id DESC);
CREATE INDEX checkout_sessions_link_recent ON checkout_sessions (link_id, created_at DESC, id DESC);
CREATE INDEX checkout_sessions_status_recent ON checkout_sessions (integrator_id, status, created_at DESC, id DESC);
CREATE INDEX checkout_sessions_reference ON checkout_sessions (integrator_id, reference, created_at DESC) WHERE reference IS NOT NULL;

-- Retention: expired sessions that received nothing, by expiry.
CREATE INDEX checkout_sessions_unpaid_expired ON checkout_sessions (expires_at) WHERE status = 'expired' AND paid_amount = 0 AND late_amount = 0;

-- Where an integrator's events are posted. `secret` signs every delivery (HMAC-SHA256), so it is kept
-- as it is (a digest could not sign); the API shows it once, when the endpoint is created.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  secret text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE INDEX webhook_endpoints_integrator ON webhook_endpoints (integrator_id, created_at DESC, id DESC);

-- The outbox: one row per event, written in the transaction of the change it announces, with the
-- exact body every delivery of it sends (so each retry signs the same bytes under the same id).
CREATE TABLE webhook_events (
  id text PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE INDEX webhook_events_created ON webhook_events (created_at);

-- One event on its way to one endpoint, and its log. A worker claims a due delivery by setting
-- `claim_id` and `claimed_until` (FOR UPDATE SKIP LOCKED): no other instance takes it until that lease
-- runs out, and only the claim that sent an attempt may record it.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count integer NOT NULL DEFAULT 0,
  -- The latest attempts, oldest first: [{at, statusCode, error, durationMs}].
  attempts jsonb NOT NULL DEFAULT '[]'::jsonb,
  next_attempt_at timestamptz,
  -- No automatic retry is scheduled after this (3 days after the event; at once for a test event).
  retry_until timestamptz NOT NULL,
  claim_id uuid,
  claimed_until timestamptz,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (endpoint_id, event_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CHECK ((status = 'delivered') = (delivered_at IS NOT NULL))
);

-- What the workers claim from.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- An endpoint's delivery log, newest first.
CREATE INDEX webhook_deliveries_endpoint_recent ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
