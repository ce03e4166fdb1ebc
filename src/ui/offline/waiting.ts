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
