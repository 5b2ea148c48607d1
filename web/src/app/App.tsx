/** Providers (server state) and the hash router. Global overlays (toasts, confirm dialog) sit beside the router. */
import { createHashRouter, RouterProvider } from "react-router";
import { ConfirmHost } from "../components/ConfirmHost.tsx";
import { Toaster } from "../components/Toaster.tsx";
import { registerNavigate } from "../lib/nav.ts";
import { $session } from "../lib/session.ts";
import { QueryProvider } from "./queryClient.tsx";
import { routes } from "./routes.tsx";

export const router = createHashRouter(routes);
registerNavigate((to, opts) => void router.navigate(to, opts));
// One private channel per tab while logged in (lib/userChannel.ts follows the session). Loaded
// after start-up, and only once there is a session: its socket code and schemas (zod) stay out of
// the first screen's bundle, and a logged-out first visit (login, quotations, news) never fetches
// them while its own screen is still loading.
let channelLoaded = false;
const stopWaiting = $session.subscribe((s) => {
  if (!s.token || channelLoaded) return;
  channelLoaded = true;
  queueMicrotask(() => stopWaiting());
  void import("../lib/userChannel.ts").then((channel) => channel.startUserChannel());
});

export function App() {
  return (
    <QueryProvider>
      <RouterProvider router={router} />
      <Toaster />
      <ConfirmHost />
    </QueryProvider>
  );
}
