-- The dev clock (issue #27 §5, worker/lib/clock.ts): how far a local run's clock has been moved
-- ahead of real time by POST /api/dev/clock. Only read or written while DEV_CLOCK=on (`npm start`);
-- a deployment never has a row here. One row; the offset only grows (time never goes back).
CREATE TABLE dev_clock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  offset_ms INTEGER NOT NULL CHECK (offset_ms >= 0),
  updated_at INTEGER NOT NULL
);
