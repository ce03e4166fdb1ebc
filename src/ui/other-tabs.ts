"use client";
import type { QueryClient, QueryKey } from "@tanstack/react-query";

/**
 * Writes one tab made, told to this browser's other tabs (BroadcastChannel): each reads again the lists it
 * shows of what changed. The service is still the only truth: a tab is only told to ask it again, so a
 * message lost (a tab asleep) costs a stale list until the next read, never a wrong record.
 */
const CHANNEL = "banchina-modifiche";

/** Query keys of whole procedures, as `trpc.x.y.pathKey()` gives them. */
type Keys = readonly QueryKey[];

interface Message {
  chiavi: Keys;
}

const channel = () => (typeof BroadcastChannel === "undefined" ? null : new BroadcastChannel(CHANNEL));

/** This tab wrote something that the lists under `keys` show. */
export function tellOtherTabs(keys: Keys): void {
  const c = channel();
  if (!c) return;
  c.postMessage({ chiavi: keys } satisfies Message);
  c.close();
}

/** The other tabs' writes: the queries under the keys they name are read again. Returns the unsubscription. */
export function listenToOtherTabs(queryClient: QueryClient): () => void {
  const c = channel();
  if (!c) return () => {};
  c.onmessage = (ev: MessageEvent<Message>) => {
    for (const queryKey of ev.data?.chiavi ?? []) void queryClient.invalidateQueries({ queryKey: [...queryKey] });
  };
  return () => c.close();
}
