"use client";
import { useEffect } from "react";
import type { UiUser } from "../session-context";
import { rememberCurrentUser } from "./local-db";

/** Where the service serves its worker (src/server/http/service-worker.ts): at the root, so its scope is every screen. */
const WORKER_URL = "/sw.js";

/**
 * Mounted in every signed-in page loaded from the service: remembers who is signed in on this handheld
 * (for the offline shell) and installs the service worker that keeps the app shell for dead spots.
 * Development runs without the worker (Next serves changing chunks there), and removes one left by a
 * production run on the same address so it cannot serve stale files.
 */
export function OfflineSupport({ user }: { user: UiUser }) {
  const { id, username, ruolo } = user;
  useEffect(() => {
    rememberCurrentUser({ id, username, ruolo }).catch((e: unknown) => console.warn("Utente non memorizzato sul palmare:", e));
  }, [id, username, ruolo]);
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    if (process.env.NODE_ENV === "production") {
      navigator.serviceWorker.register(WORKER_URL, { scope: "/" }).catch((e: unknown) => console.warn("Service worker non installato:", e));
    } else {
      void navigator.serviceWorker.getRegistrations().then((all) => all.forEach((r) => void r.unregister()));
    }
  }, []);
  return null;
}
