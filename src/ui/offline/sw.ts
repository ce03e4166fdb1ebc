/**
 * The service worker (built by src/server/service-worker-build.ts, served at /sw.js; not in development).
 *
 * It keeps the app shell for dead Wi-Fi spots and nothing of any user:
 * - precached: Next's static files of this build (JS, CSS, fonts, images) and the offline shell page
 *   (/offline, rendered without a session: no name, no CSRF token, no rows, no role);
 * - navigations go to the service as they would without a worker and are never stored (every screen is
 *   rendered for its user); one that gets no answer is answered with the offline shell, which reads the
 *   signed-in user from IndexedDB and shows the screens that work offline (src/ui/offline/offline-shell.tsx);
 * - everything else (tRPC, REST, health, Next's data requests) is left to the network, never cached.
 */
import { NetworkOnly, type PrecacheEntry, Serwist } from "serwist";

/** Filled in at build time: the build's static files and the shell, each with a content revision. */
declare const __PRECACHE__: PrecacheEntry[];

const isNavigation = ({ request }: { request: Request }) => request.mode === "navigate";

const serwist = new Serwist({
  precacheEntries: __PRECACHE__,
  precacheOptions: { cleanupOutdatedCaches: true },
  // A new build's worker takes over at once: the shell it keeps must match the files the service serves.
  skipWaiting: true,
  clientsClaim: true,
  runtimeCaching: [
    // A dead spot often leaves the connection hanging rather than failing: after 10 s the shell is better.
    { matcher: isNavigation, handler: new NetworkOnly({ networkTimeoutSeconds: 10 }) },
  ],
  fallbacks: { entries: [{ url: "/offline", matcher: isNavigation }] },
});

serwist.addEventListeners();
