-- Missions: their definitions, who they are assigned to, each member's progress, the purchase
-- events already counted (idempotency by event id) and the members whose purchase history is
-- still loading. Dates are ISO 'YYYY-MM-DD' in America/Santiago (text compares in date order);
-- instants are Unix milliseconds (BIGINT).

CREATE TABLE missions (
    mission_id  TEXT PRIMARY KEY,
    -- Product category 1-57 (16 is not used).
    category_id BIGINT NOT NULL,
    title       TEXT NOT NULL,
    description TEXT NOT NULL,
    -- 'amount' (pesos spent in the category) or 'purchases' (purchases with a line in it).
    goal_kind   TEXT NOT NULL,
    goal        BIGINT NOT NULL CHECK (goal > 0),
    -- Pesos granted once when the goal is reached.
    reward      BIGINT NOT NULL CHECK (reward > 0),
    -- Inclusive.
    starts_on   TEXT NOT NULL,
    ends_on     TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

CREATE INDEX missions_ends_on ON missions (ends_on);

-- The members a mission is assigned to; a mission without rows here is every member's.
CREATE TABLE mission_members (
    mission_id TEXT NOT NULL REFERENCES missions (mission_id) ON DELETE CASCADE,
    member_id  TEXT NOT NULL,
    PRIMARY KEY (mission_id, member_id)
);

CREATE INDEX mission_members_member ON mission_members (member_id);

-- A member's progress on a mission. completed_at is set once (a guarded UPDATE), and with it
-- the reward and the ledger description as they were then, so a retried grant sends exactly
-- the same movement; reward_granted_at is set once accounts recorded it.
CREATE TABLE member_progress (
    mission_id         TEXT NOT NULL REFERENCES missions (mission_id) ON DELETE CASCADE,
    member_id          TEXT NOT NULL,
    progress           BIGINT NOT NULL,
    completed_at       BIGINT,
    reward             BIGINT,
    reward_description TEXT,
    reward_granted_at  BIGINT,
    updated_at         BIGINT NOT NULL,
    PRIMARY KEY (mission_id, member_id)
);

CREATE INDEX member_progress_member ON member_progress (member_id);
CREATE INDEX member_progress_ungranted ON member_progress (completed_at)
    WHERE reward_granted_at IS NULL;

-- Purchase events already counted; a redelivered event finds its id here and counts nothing.
CREATE TABLE processed_events (
    event_id     TEXT PRIMARY KEY,
    processed_at BIGINT NOT NULL
);

-- Members whose purchase history is being loaded (migration): their missions are not shown yet.
CREATE TABLE history_loading (
    member_id TEXT PRIMARY KEY,
    since     BIGINT NOT NULL
);
