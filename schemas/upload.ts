/** Uploaded images (POST /api/new/upload, /api/new/upload/base64): refer to them by `id` or `url`. */
import { z } from "zod";

export const uploadSchema = z.object({
  id: z.string(),
  url: z.string(),
  path: z.string(),
  type: z.enum(["png", "jpg"]),
  width: z.number().int(),
  height: z.number().int(),
  size: z.number().int(),
});
export type Upload = z.infer<typeof uploadSchema>;
