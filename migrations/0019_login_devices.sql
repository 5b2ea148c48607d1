-- Devices and addresses each account has signed in from (issue #16 §1: "a login from a new device
-- or address"; worker/domain/auth/devices.ts).
--
-- One row per (user, device, address): `device` is the short readable description of the browser
-- and system taken from the User-Agent ("Chrome (Windows)"), so a browser update is not a new
-- device. A login's own D1 batch creates the session, then writes a `login_new_device`
-- notification only when the account has signed in before and never from this pair (the very
-- first login has nothing to compare with), then records the pair: a login from a pair seen before
-- is not new, and two logins racing are ordered by D1 like any two batches.
CREATE TABLE login_devices (
  user_id INTEGER NOT NULL REFERENCES users(id),
  device TEXT NOT NULL CHECK (length(device) BETWEEN 1 AND 80),
  ip TEXT NOT NULL CHECK (length(ip) BETWEEN 1 AND 64),
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (user_id, device, ip)
) WITHOUT ROWID;
