import { useSyncExternalStore } from "react";

/**
 * How many items each screen holds back until the service can be reached (scans, queued arrivals), for the
 * offline banner to show. A screen sets its own count and sets 0 when it has nothing left (or unmounts).
 */

const counts = new Map<string, number>();
const listeners = new Set<() => void>();
let total = 0;

export function setWaitingCount(screen: string, n: number): void {
  if (n > 0) counts.set(screen, n);
  else counts.delete(screen);
  const next = [...counts.values()].reduce((a, b) => a + b, 0);
  if (next === total) return;
  total = next;
  for (const l of listeners) l();
}

export function waitingTotal(): number {
  return total;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useWaitingTotal(): number {
  return useSyncExternalStore(subscribe, waitingTotal, () => 0);
}

/**
 * The user's queues (IndexedDB stores) whose screen is open in this page: the offline banner counts the others
 * from the device's database, since no open screen reports them.
 */
const openQueues = new Map<string, number>();
let openVersion = 0;

/** A screen's queue on `store` is open here (until the returned function is called). */
export function markQueueOpen(store: string): () => void {
  openQueues.set(store, (openQueues.get(store) ?? 0) + 1);
  openVersion += 1;
  for (const l of listeners) l();
  return () => {
    const n = (openQueues.get(store) ?? 1) - 1;
    if (n > 0) openQueues.set(store, n);
    else openQueues.delete(store);
    openVersion += 1;
    for (const l of listeners) l();
  };
}

export function isQueueOpen(store: string): boolean {
  return openQueues.has(store);
}

/** Changes whenever a queue opens or closes here. */
export function useOpenQueuesVersion(): number {
  return useSyncExternalStore(
    subscribe,
    () => openVersion,
    () => 0,
  );
}
