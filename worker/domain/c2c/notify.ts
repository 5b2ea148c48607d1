/**
 * Order changes and chat messages reach the other party at once through the per-user channel
 * (DESIGN §5). Until that channel lands (worker/lib/notify.ts, events `c2c_order` and
 * `c2c_message` of schemas/realtime.ts) the screens poll; these are the only call sites to switch.
 * A failed notification never undoes or fails the committed change it reports.
 */
export type C2cEvent = { type: "c2c_order"; data: { id: number; is_sure: number } } | { type: "c2c_message"; data: { order_id: number } };

/** Tells each user (the parties other than the actor) about an order change or a message. */
export async function notifyUsers(_env: Env, userIds: number[], event: C2cEvent): Promise<void> {
  void userIds;
  void event;
}
