/** GET /api/dev/outbox (local development only): the newest e-mails, SMS codes and captcha answers as stored. */
import { z } from "zod";

export const devOutboxSchema = z.array(z.record(z.string(), z.unknown()));
