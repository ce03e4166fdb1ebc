import { useSyncExternalStore } from "react";

/**
 * Whether the service can be reached, and the UI's requests bounded in time.
 *
 * A handheld in a dead Wi-Fi spot often still believes it is connected (navigator.onLine stays true while
 * every request hangs), so the browser's events are not enough: a request that fails without an answer
 * makes us ask /api/health, and while that fails too the UI is offline, asking again every few seconds.
 */

export const REQUEST_TIMEOUT_MS = 8_000;
const PROBE_EVERY_MS = 5_000;
/** Statuses whose Response may not carry a body, not even an empty one. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** The errors' names, which describeError (src/ui/errors.ts) reads off a TRPCClientError's cause. */
export const TIMEOUT_ERROR = "RequestTimeoutError";
export const OFFLINE_ERROR = "OfflineError";

/** No answer in REQUEST_TIMEOUT_MS: the request may or may not have reached the service. */
export class RequestTimeoutError extends Error {
  override name = TIMEOUT_ERROR;
  constructor() {
    super(`Nessuna risposta dal servizio in ${REQUEST_TIMEOUT_MS / 1000} s: la rete potrebbe essere assente o il servizio bloccato.`);
  }
}

/** The request was not sent: the browser has no network (or, in the offline shell, no session token yet). */
export class OfflineError extends Error {
  override name = OFFLINE_ERROR;
  constructor(message = "Offline: il palmare non è collegato alla rete.") {
    super(message);
  }
}

/**
 * The browser's word: only an explicit `false` means offline. Node 21+ has a `navigator` without `onLine`
 * (the server's render, the unit tests), which is not a browser without a network.
 */
const browserSaysOnline = () => typeof navigator === "undefined" || navigator.onLine !== false;

let browserOnline = browserSaysOnline();
let serviceReachable = true;
let probing: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

function notify(): void {
  for (const l of listeners) l();
}

function setReachable(ok: boolean): void {
  if (serviceReachable === ok) return;
  serviceReachable = ok;
  notify();
}

/** Asks /api/health until it answers; any HTTP answer means the network works (a 503 is the database's business). */
async function probe(): Promise<void> {
  clearTimeout(probing);
  probing = undefined;
  if (!browserOnline) return;
  try {
    await fetch("/api/health", { cache: "no-store", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    setReachable(true);
  } catch {
    setReachable(false);
    probing = setTimeout(() => void probe(), PROBE_EVERY_MS);
  }
}

/** A request failed with no answer at all: find out whether the service is still there. */
export function reportNoAnswer(): void {
  if (probing === undefined) void probe();
}

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0 && typeof window !== "undefined") {
    window.addEventListener("online", onBrowserOnline);
    window.addEventListener("offline", onBrowserOffline);
    browserOnline = browserSaysOnline();
  }
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && typeof window !== "undefined") {
      window.removeEventListener("online", onBrowserOnline);
      window.removeEventListener("offline", onBrowserOffline);
    }
  };
}

function onBrowserOnline(): void {
  browserOnline = true;
  notify();
  // Back on the Wi-Fi does not mean the service answers: check before saying so.
  void probe();
}

function onBrowserOffline(): void {
  browserOnline = false;
  notify();
}

/** True when the browser has a network and the last look at the service found it answering. */
export function isOnline(): boolean {
  return browserOnline && serviceReachable;
}

/** Re-renders on every change of isOnline(); the server renders "online". */
export function useOnline(): boolean {
  return useSyncExternalStore(subscribe, isOnline, () => true);
}

/**
 * fetch for the UI's tRPC links: fails at once when the browser is offline, and gives up after
 * REQUEST_TIMEOUT_MS, body included (the answer is read here, so a stream that stalls after its headers
 * times out too). A caller's own abort (React Query cancelling a query) stays an abort.
 */
export async function timedFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  if (!browserSaysOnline()) throw new OfflineError();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, REQUEST_TIMEOUT_MS);
  const outer = init.signal;
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  outer?.addEventListener("abort", forward, { once: true });
  try {
    const res = await fetch(input, { ...init, signal: controller.signal });
    const body = NULL_BODY.has(res.status) ? null : await res.arrayBuffer();
    setReachable(true);
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  } catch (e) {
    if (timedOut) {
      reportNoAnswer();
      throw new RequestTimeoutError();
    }
    if (!outer?.aborted) reportNoAnswer();
    throw e;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", forward);
  }
}
