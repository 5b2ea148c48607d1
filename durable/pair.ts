/**
 * One instance per trading pair. Placeholder until the spot engine lands: it owns nothing yet.
 */
import { DurableObject } from "cloudflare:workers";

export class PairDurableObject extends DurableObject<Env> {
  override async fetch(): Promise<Response> {
    return new Response("not ready", { status: 503 });
  }
}
