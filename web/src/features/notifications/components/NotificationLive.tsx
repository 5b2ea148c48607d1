/**
 * Keeps the notification centre live while logged in: the user channel's `notification` event
 * (a new item landed) and the channel's reopen (events sent while it was down are lost) read the
 * first page and the unread count again, which toasts the new items (api.ts), and every balance
 * query (sharedKeys.balances) again. Loaded lazily by
 * the app shell, with the channel's own code, so neither weighs on the first screen.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useUserEvent } from "../../../lib/userChannel.ts";
import { sharedKeys } from "../../../lib/query.ts";
import { NOTIFICATIONS } from "../api.ts";

export default function NotificationLive() {
  const qc = useQueryClient();
  // A new item is what a money event leaves (a deposit credited, a fill, a settlement...): the
  // balances on screen (assets, spot, statement, holds) are read again at once with the inbox,
  // instead of at their next poll.
  const refetch = () => {
    void qc.invalidateQueries({ queryKey: NOTIFICATIONS });
    void qc.invalidateQueries({ queryKey: sharedKeys.balances });
  };
  useUserEvent("notification", refetch, refetch);
  // Nothing to see; marks for the browser tests that the live updates are listening.
  return <span hidden data-testid="notifications-live" />;
}
