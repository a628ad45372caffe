-- SQLite twin of migrations/postgres: the same column and index.
--
-- The member card (#21): each club account's card number, what the digital card at
-- /mi-club/tarjeta shows as a barcode and a store system scans at the till instead of the RUT.
-- 12 decimal digits, the first 1-9, the last the Luhn check digit of the first 11, drawn at
-- random (domain::CardNumber). Written in the transaction that opens the account; accounts
-- opened before this column get theirs from the backfill accounts runs at start (only rows
-- still NULL, so two replicas starting together never rewrite each other's). Never changed once
-- set. The unique index refuses a second account drawing a number already taken (the opener
-- draws again) and answers the till's lookup by card; NULLs do not collide.
ALTER TABLE club_accounts ADD COLUMN card_number TEXT NULL;
CREATE UNIQUE INDEX club_accounts_card_number ON club_accounts (card_number);
