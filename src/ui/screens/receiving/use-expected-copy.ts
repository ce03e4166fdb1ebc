"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import type { UserDb } from "../../offline/local-db";
import { useKeptCopy } from "../../offline/use-kept-copy";
import { useTRPC } from "../../trpc";
import type { ExpectedCopy } from "./local-lookup";
import type { DockDbShape } from "./use-arrival-queue";

const REFRESH_MS = 60_000;
/** After registrations, the copy is fetched again once they pause: not at every Enter (the whole warehouse's rows). */
const AFTER_WRITES_MS = 10_000;

/**
 * The handheld's copy of the receiving warehouse's open expected rows, for scans in a dead spot: kept in the
 * user's IndexedDB, fetched again while online (every minute, at a change of warehouse, after the
 * registrations pause), its age shown. `refresh` after a registration is cheap to call often: it waits for a pause.
 */
export function useExpectedCopy(magazzino: string | null, db: UserDb<DockDbShape> | null, online: boolean) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const { copy, copyRef, settled, keep } = useKeptCopy<ExpectedCopy>(db, "attesi", magazzino);
  const fetching = useRef(false);

  const refresh = useCallback(async () => {
    if (!db || !magazzino || !online || fetching.current) return;
    fetching.current = true;
    try {
      const fresh = await client.fetchQuery({ ...trpc.arrivals.expected.queryOptions({ magazzino: Number(magazzino) }), staleTime: 0 });
      await keep(fresh);
    } catch {
      // No answer: the copy kept stays, with its age.
    } finally {
      fetching.current = false;
    }
  }, [client, trpc, db, magazzino, online, keep]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const later = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(later.current), []);
  /** The copy fetched again once the registrations pause (the row just registered is then in it as it now stands). */
  const refreshSoon = useCallback(() => {
    clearTimeout(later.current);
    later.current = setTimeout(() => void refresh(), AFTER_WRITES_MS);
  }, [refresh]);

  return { copy, copyRef, settled, refresh: refreshSoon };
}
