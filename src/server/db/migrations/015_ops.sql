-- What /metrics reads at scrape time must be cheap whatever the size of the tables: the deliveries
-- given up (rare) are counted from an index of their own instead of a scan of every delivery.
-- Statements are separated by a `;` at the end of a line (see migrate() in ../migrate.ts).
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (endpoint_id) WHERE status = 'failed';
