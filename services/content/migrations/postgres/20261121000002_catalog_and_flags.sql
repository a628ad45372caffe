-- The portal's public catalog (promotions, partner benefits, campaign banners, FAQs) and the
-- runtime flags. Rows are seeded from services/content/data/ when missing by id and changed
-- afterwards only through the internal Upsert*/SetFlag calls, so a restart never undoes an
-- operator's change. Dates are ISO `YYYY-MM-DD` text (inclusive, Chilean calendar days), which
-- compare correctly as text; instants are Unix milliseconds (BIGINT).

CREATE TABLE promotions (
    id           TEXT PRIMARY KEY,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL,
    image_url    TEXT NOT NULL,
    -- Empty when the promotion links nowhere.
    link_url     TEXT NOT NULL,
    badge        TEXT NOT NULL,
    starts_on    TEXT NOT NULL,
    ends_on      TEXT NOT NULL,
    position     BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX promotions_in_force ON promotions (ends_on, starts_on);

CREATE TABLE alliances (
    id           TEXT PRIMARY KEY,
    partner      TEXT NOT NULL,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL,
    image_url    TEXT NOT NULL,
    link_url     TEXT NOT NULL,
    conditions   TEXT NOT NULL,
    starts_on    TEXT NOT NULL,
    ends_on      TEXT NOT NULL,
    position     BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX alliances_in_force ON alliances (ends_on, starts_on);

CREATE TABLE banners (
    id           TEXT PRIMARY KEY,
    title        TEXT NOT NULL,
    subtitle     TEXT NOT NULL,
    image_url    TEXT NOT NULL,
    image_alt    TEXT NOT NULL,
    link_url     TEXT NOT NULL,
    starts_on    TEXT NOT NULL,
    ends_on      TEXT NOT NULL,
    position     BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX banners_in_force ON banners (ends_on, starts_on);

CREATE TABLE faqs (
    id           TEXT PRIMARY KEY,
    -- 'general' or 'login'.
    audience     TEXT NOT NULL,
    question     TEXT NOT NULL,
    answer       TEXT NOT NULL,
    position     BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX faqs_by_audience ON faqs (audience, position);

-- One row per flag: portal_enabled, change_password_enable, is_login_maintenance.
CREATE TABLE flags (
    name         TEXT PRIMARY KEY,
    value        BOOLEAN NOT NULL,
    updated_at   BIGINT NOT NULL,
    -- Who set it last: the service client of the SetFlag call, or 'seed'.
    updated_by   TEXT NOT NULL
);
