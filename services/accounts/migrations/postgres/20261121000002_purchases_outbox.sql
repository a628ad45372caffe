-- Purchases posted by store systems, and the outbox of events for missions.
-- A purchase, its pending accrual and its outbox row are written in one transaction.

CREATE TABLE purchases (
    purchase_id      TEXT PRIMARY KEY,
    -- Chosen by the store system; a retried or concurrent duplicate finds the first post here.
    idempotency_key  TEXT NOT NULL UNIQUE,
    -- Hex SHA-256 of the canonical payload: the same key with another payload is refused.
    request_digest   TEXT NOT NULL,
    member_id        TEXT NOT NULL REFERENCES club_accounts (member_id),
    store_id         TEXT NOT NULL,
    store_name       TEXT NOT NULL,
    purchased_at     BIGINT NOT NULL,
    payment_method   TEXT NOT NULL CHECK (payment_method IN ('partner_card', 'other_card', 'cash')),
    -- JSON array of {"category", "amount"} as posted (TEXT: the Any driver reads no JSONB).
    lines            TEXT NOT NULL,
    total            BIGINT NOT NULL CHECK (total > 0),
    accrued          BIGINT NOT NULL CHECK (accrued >= 0),
    rules_version    TEXT NOT NULL,
    -- The pending accrual; NULL when the purchase accrued nothing. Deferred: the purchase row
    -- is written first, so a duplicate key is found before anything else is written.
    movement_id      TEXT NULL UNIQUE REFERENCES movements (id) DEFERRABLE INITIALLY DEFERRED,
    created_at       BIGINT NOT NULL,
    CHECK ((accrued = 0) = (movement_id IS NULL))
);

CREATE INDEX purchases_member_purchased_at ON purchases (member_id, purchased_at);

-- Events waiting for the relay to Redis Streams; published_at is set once relayed.
CREATE TABLE outbox (
    event_id      TEXT PRIMARY KEY,
    topic         TEXT NOT NULL,
    member_id     TEXT NOT NULL,
    payload       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    published_at  BIGINT NULL
);

CREATE INDEX outbox_unpublished ON outbox (created_at) WHERE published_at IS NULL;

-- The due accruals ConfirmDueAccruals looks for, without scanning the whole ledger.
CREATE INDEX movements_pending_occurred_at ON movements (occurred_at) WHERE status = 'pending';
