-- Who may take back a member who left (their ledger, balance and card): the SHA-256 (lowercase
-- hex) of the address they left with, lowercased. Written when they unsubscribe, cleared when
-- a returning registration is activated. Before, anyone who knew the RUT of a member who left
-- could register it with an address of their own and find that member's pesos and purchase
-- history; now a registration over such a member must use that same address, which it then has
-- to confirm before it can log in. NULL for members who left before this column existed.
ALTER TABLE members ADD COLUMN left_email_digest TEXT NULL;
