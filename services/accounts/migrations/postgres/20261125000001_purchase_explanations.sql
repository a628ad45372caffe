-- Every peso explained (#21): the accrual as the rule engine computed it when the purchase was
-- posted, stored with the purchase, so Mis Movimientos explains a movement with the rules and
-- rates that posted it and a later change of the rule file never rewrites that history.
--
-- JSON of miclub_accrual::Accrual: {"rules_version", "total", "lines": [{"category", "amount",
-- "rate_bp", "pesos", "rule_id", "description"}]}, one line per purchase line in the order
-- posted (TEXT: the Any driver reads no JSONB). NULL for purchases posted before this column
-- existed: their detail says no breakdown is available, and nothing recomputes it with today's
-- rules.
ALTER TABLE purchases ADD COLUMN accrual TEXT NULL;
