-- Which movements are mission rewards (GrantReward): a member is granted at most
-- miclub_platform::rewards::REWARD_PESOS_PER_DAY of them in any 24 hours, counted from this
-- column. Before, missions recorded rewards through RecordMovement, which any kind and sign may
-- take, so a leaked missions token could add or take any amount; the rewards it recorded carry
-- the ids missions derives ("mission-" and a UUID), which mark them here.
ALTER TABLE movements ADD COLUMN reward BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE movements SET reward = TRUE WHERE kind = 'adjustment' AND amount > 0 AND id LIKE 'mission-%';
