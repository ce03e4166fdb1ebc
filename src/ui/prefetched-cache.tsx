"use client";
import { type DehydratedState, HydrationBoundary, hydrate, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useLayoutEffect } from "react";

/** When each page's reads were first seen here, on this browser's clock (see `onThisClock`). */
const received = new WeakMap<DehydratedState, DehydratedState>();

/**
 * The reads a page brought (`Prefetched`, src/ui/server/screen.tsx) as this browser's query cache takes
 * them: as old as they were when the server sent them, counted from when they got here on this
 * browser's clock. The server's own timestamps cannot be compared with this clock: a handheld whose
 * clock runs ahead of the server's would take every page's data for stale, or for older than the copy
 * it already holds and drop it, and ask again for all of it.
 *
 * Kept per payload object: a page the router serves again from its cache (back and forward) brings the
 * same object, and its reads keep the age they had, instead of passing for new.
 */
function onThisClock(state: DehydratedState): DehydratedState {
  let rebased = received.get(state);
  if (!rebased) {
    const now = Date.now();
    rebased = {
      ...state,
      queries: state.queries.map((q) => ({
        ...q,
        dehydratedAt: now,
        state: { ...q.state, dataUpdatedAt: now - Math.max(0, q.dehydratedAt - q.state.dataUpdatedAt) },
      })),
    };
    received.set(state, rebased);
  }
  return rebased;
}

/**
 * Fills the browser's query cache with a page's reads before the screen's queries look at it.
 *
 * `HydrationBoundary` alone puts a query the cache already holds (the screen visited a while ago) in its
 * own passive effect, which React runs after the screen's: the screen's `useQuery` subscribes first,
 * finds last visit's copy stale and asks the server again for what the page has just brought. A layout
 * effect runs before every passive effect of the tree, after the commit (a navigation abandoned
 * half-way changes nothing), so the page's newer copy is in place when the queries subscribe.
 */
export function PrefetchedCache({ state, children }: { state: DehydratedState; children: ReactNode }) {
  const queryClient = useQueryClient();
  const here = onThisClock(state);
  // hydrate() keeps whatever copy is newer, so the queries HydrationBoundary already put in are left alone.
  useLayoutEffect(() => hydrate(queryClient, here), [queryClient, here]);
  return <HydrationBoundary state={here}>{children}</HydrationBoundary>;
}
