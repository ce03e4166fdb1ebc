import { OfflineShell } from "@/ui/offline/offline-shell";

export const metadata = { title: "Senza rete" };

/**
 * The offline shell, precached by the service worker (src/ui/offline/sw.ts) and shown for a navigation
 * that got no answer. Outside the signed-in layout on purpose: rendered with no session, it holds no
 * user's data, and it is the same page for every user of the handheld.
 */
export default function OfflinePage() {
  return <OfflineShell />;
}
