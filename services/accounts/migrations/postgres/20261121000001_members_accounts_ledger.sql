-- Members, their club account and the ledger of movements behind its balance.
-- Instants are Unix milliseconds (BIGINT); dates are ISO text; ids are TEXT.

CREATE TABLE members (
    member_id        TEXT PRIMARY KEY,
    document_type    TEXT NOT NULL CHECK (document_type IN ('RUT', 'FOREIGN')),
    -- Canonical form: RUT as "12345678-5", foreign document uppercased.
    document_number  TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    last_name        TEXT NOT NULL,
    mother_surname   TEXT NOT NULL DEFAULT '',
    phone_number     TEXT NOT NULL DEFAULT '',
    -- NULL when not given; otherwise an id of the genders list.
    gender_id        BIGINT NULL,
    -- "YYYY-MM-DD"; NULL when not given.
    birth_date       TEXT NULL,
    email            TEXT NOT NULL,
    email_confirmed  BOOLEAN NOT NULL DEFAULT FALSE,
    -- NULL until the member decides; the three terms columns are set together.
    terms_decision   TEXT NULL CHECK (terms_decision IN ('accepted', 'rejected')),
    terms_version    TEXT NULL,
    terms_event_at   BIGINT NULL,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    CHECK ((terms_decision IS NULL) = (terms_event_at IS NULL))
);

-- A member without a row here has no club account (HTTP 406 at the gateway).
CREATE TABLE club_accounts (
    member_id   TEXT PRIMARY KEY REFERENCES members (member_id),
    -- Whole pesos; changes only together with a confirmed movement, in the same transaction.
    balance     BIGINT NOT NULL DEFAULT 0 CHECK (balance >= 0),
    created_at  BIGINT NOT NULL,
    -- Instant of the last movement that changed the balance (the opening, before any).
    updated_at  BIGINT NOT NULL
);

-- The ledger. The balance equals the sum of the confirmed movements of the account.
CREATE TABLE movements (
    id           TEXT PRIMARY KEY,
    member_id    TEXT NOT NULL REFERENCES club_accounts (member_id),
    kind         TEXT NOT NULL CHECK (kind IN ('accrual', 'redemption', 'expiration', 'adjustment')),
    -- Only accruals wait as pending; pending movements do not count in the balance.
    status       TEXT NOT NULL CHECK (status IN ('pending', 'confirmed')),
    -- Signed whole pesos: accruals add, redemptions and expirations take, adjustments either.
    amount       BIGINT NOT NULL,
    -- Spanish text the member reads, e.g. "Compra en Lider Providencia".
    reason       TEXT NOT NULL,
    occurred_at  BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    CHECK (status = 'confirmed' OR kind = 'accrual'),
    CHECK (
        (kind = 'accrual' AND amount > 0)
        OR (kind IN ('redemption', 'expiration') AND amount < 0)
        OR (kind = 'adjustment' AND amount <> 0)
    )
);

CREATE INDEX movements_member_occurred_at ON movements (member_id, occurred_at);
