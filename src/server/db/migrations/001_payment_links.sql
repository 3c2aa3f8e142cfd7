-- Integrators, their API keys and their payment links.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).

CREATE TABLE integrators (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  -- The last `seq` given to one of this integrator's links (see payment_links.seq).
  link_seq bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Keys are stored as SHA-256 digests only: a key is 190 bits of randomness, so a fast hash is
-- enough (no dictionary to attack) and lets every request be checked by one indexed lookup.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  user_id uuid NOT NULL,
  name text NOT NULL,
  key_prefix text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE payment_links (
  id uuid PRIMARY KEY,
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  -- 1, 2, 3… per integrator in creation order, taken under the integrator's row lock: the list is
  -- newest first by seq, and an unfiltered page is a seq range, as fast at page 50,000 as at page 1.
  seq bigint NOT NULL,
  user_id uuid NOT NULL,
  slug text NOT NULL UNIQUE,
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  link_type text NOT NULL CHECK (link_type IN ('Standard', 'Donation')),
  fiat_amount numeric(30, 6) NOT NULL DEFAULT 0 CHECK (fiat_amount >= 0),
  fiat_currency text[] NOT NULL,
  collect_address boolean NOT NULL DEFAULT false,
  collect_phone boolean NOT NULL DEFAULT false,
  redirect boolean NOT NULL DEFAULT false,
  show_confirmation_page boolean NOT NULL DEFAULT false,
  success_message text NOT NULL DEFAULT '',
  redirect_url text NOT NULL DEFAULT '',
  cart_items jsonb NOT NULL DEFAULT '[]',
  is_active boolean NOT NULL DEFAULT true,
  visited_count integer NOT NULL DEFAULT 0 CHECK (visited_count >= 0),
  payment_count integer NOT NULL DEFAULT 0 CHECK (payment_count >= 0),
  closes_at timestamptz,
  min_amount numeric(30, 6),
  max_amount numeric(30, 6),
  suggested_amounts text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

CREATE UNIQUE INDEX payment_links_integrator_seq ON payment_links (integrator_id, seq);

-- Live link counts per integrator, kind and state, kept in the transaction that creates or changes a
-- link, so the list's totalItems is a sum of at most four rows instead of a count over every link.
CREATE TABLE integrator_link_counts (
  integrator_id uuid NOT NULL REFERENCES integrators(id),
  link_type text NOT NULL,
  is_active boolean NOT NULL,
  n bigint NOT NULL DEFAULT 0 CHECK (n >= 0),
  PRIMARY KEY (integrator_id, link_type, is_active)
);

-- One row per (link, visitor) so a repeat visit within 30 minutes counts once.
CREATE TABLE link_visits (
  link_id uuid NOT NULL REFERENCES payment_links(id),
  visit_id text NOT NULL,
  counted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (link_id, visit_id)
);
