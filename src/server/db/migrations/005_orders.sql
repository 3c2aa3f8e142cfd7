-- Orders a shop creates, and what a page may say about a payment. Statements are separated by a `;`
-- at the end of a line (see migrate() in ../index.ts).

-- A session's `reference` is the merchant's: only an order (created with the API key) sets it. What a
-- keyless session start sends is what the page said, which anyone can change: `client_reference`.
ALTER TABLE checkout_sessions ADD COLUMN client_reference text;

-- Every reference stored so far came from a keyless start (there was no other way to set one), so it
-- was the page's word, never the merchant's: it moves to `client_reference`.
UPDATE checkout_sessions SET client_reference = reference, reference = NULL WHERE reference IS NOT NULL;
