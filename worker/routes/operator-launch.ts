/**
 * Operator console for launches (/api/admin/launch/*; role operator only): every project with its
 * drafts, create a draft, publish it (reserves the supply in the treasury), cancel it (refunds every
 * commitment in full). Each action is audited with its reason in its own batch.
 */
import { Hono } from "hono";
import { launchActionSchema, launchProjectCreateSchema, launchProjectListSchema, launchProjectSchema } from "../../schemas/launch.ts";
import { requireOperator, requireUser } from "../lib/auth.ts";
import type { AppEnv } from "../lib/context.ts";
import { answers, ok } from "../lib/respond.ts";
import { jsonBody } from "../lib/validate.ts";
import { cancelProject, createProject, publishProject } from "../domain/launch/console.ts";
import { listProjects } from "../domain/launch/store.ts";
import { invalidates, PUBLIC_LISTS } from "../lib/public-cache.ts";

export const operatorLaunchRoutes = new Hono<AppEnv>()
  .use("/admin/launch/*", requireUser, requireOperator, invalidates(PUBLIC_LISTS.launch))
  .get("/admin/launch/projects", answers(launchProjectListSchema, { summary: "Every launch project, drafts included, newest first", auth: true }), async (c) =>
    ok(c, await listProjects(c.env.DB, null, { drafts: true })),
  )
  .post("/admin/launch/projects", jsonBody(launchProjectCreateSchema), answers(launchProjectSchema, { summary: "Create a draft project (audited); a new token is created unlisted", auth: true }), async (c) =>
    ok(c, await createProject(c.env.DB, c.get("user").id, c.req.valid("json"))),
  )
  .post("/admin/launch/publish", jsonBody(launchActionSchema), answers(launchProjectSchema, { summary: "Publish a draft: its supply is reserved (frozen) in the treasury (audited)", auth: true }), async (c) => {
    const b = c.req.valid("json");
    return ok(c, await publishProject(c.env, c.get("user").id, b.id, b.reason));
  })
  .post("/admin/launch/cancel", jsonBody(launchActionSchema), answers(launchProjectSchema, { summary: "Cancel a draft or open project: every commitment refunded in full (audited)", auth: true }), async (c) => {
    const b = c.req.valid("json");
    return ok(c, await cancelProject(c.env, c.get("user").id, b.id, b.reason));
  });
