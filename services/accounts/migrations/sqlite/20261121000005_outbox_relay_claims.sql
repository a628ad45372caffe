-- The outbox relay's claims, so relays in several replicas do not publish the same row.
-- A relay claims a batch of unpublished rows with one guarded UPDATE that sets its own token and
-- a lease (claimed_until, Unix ms). A claimed row that is still unpublished becomes claimable
-- again once its lease has passed (its relay crashed mid-batch), so no claim holds an event
-- back for good.
ALTER TABLE outbox ADD COLUMN claim_token TEXT NULL;
ALTER TABLE outbox ADD COLUMN claimed_until BIGINT NULL;
