-- Invitation rebates (issue #18): each run settles a window of time, not only a calendar day, so an
-- operator can close today early (POST /api/admin/invite/run with today's date) without losing or
-- doubling a fee: the run of day D covers [the previous run's window_to, or D's start; D's end, or
-- the moment of the early close). The day after an early close starts where it stopped.
-- NULL (runs made before this migration) = the whole Beijing day.
ALTER TABLE invite_runs ADD COLUMN window_from INTEGER;
ALTER TABLE invite_runs ADD COLUMN window_to INTEGER;
