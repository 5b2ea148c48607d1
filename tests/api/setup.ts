// Applies the D1 migrations to the per-file isolated database before the tests of a file run.
import { applyD1Migrations, env } from "cloudflare:test";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
