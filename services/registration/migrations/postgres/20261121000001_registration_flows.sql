-- Registration flows in progress. A row is keyed by the SHA-256 (hex) of the opaque flow id the
-- client holds, so the table alone never gives a usable flow id away. Personal data stays NULL
-- until step 2 is accepted and is erased again once the flow completes. member_id is chosen once,
-- when completion starts, and kept for retries. Instants are Unix milliseconds (BIGINT).

CREATE TABLE registration_flows (
    id              TEXT PRIMARY KEY,
    -- The step the member is on: 2 (personal data) or 3 (password).
    step            BIGINT NOT NULL,
    -- 'open', 'completing' (member_id chosen, calls in progress or failed) or 'completed'.
    status          TEXT NOT NULL,
    -- 'RUT', 'PASSPORT' or 'NATIONAL_ID'.
    document_type   TEXT NOT NULL,
    -- Canonical RUT "12345678-5" or the foreign number uppercased.
    document_number TEXT NOT NULL,
    -- Chilean card serial, digits only (and a leading "A" on old cards); NULL for foreign ones.
    card_serial     TEXT,
    -- ISO 3166-1 alpha-2 of the issuing country ("CL" for a RUT).
    country         TEXT NOT NULL,
    name            TEXT,
    last_name       TEXT,
    mother_surname  TEXT,
    phone_number    TEXT,
    birth_date      TEXT,
    gender_id       BIGINT,
    email           TEXT,
    member_id       TEXT,
    -- Version of the terms in force when completion started.
    terms_version   TEXT,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);

CREATE INDEX registration_flows_expires_at ON registration_flows (expires_at);
