"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { UserDb } from "../../offline/local-db";
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
  const [copy, setCopy] = useState<ExpectedCopy | null>(null);
  const copyRef = useRef<ExpectedCopy | null>(null);
  const fetching = useRef(false);

  // The copy kept on the device for this warehouse, first: it may be all there is.
  useEffect(() => {
    copyRef.current = null;
    setCopy(null);
    if (!db || !magazzino) return;
    let live = true;
    void db.get("attesi", magazzino).then((kept) => {
      if (live && kept && !copyRef.current) {
        copyRef.current = kept;
        setCopy(kept);
      }
    });
    return () => {
      live = false;
    };
  }, [db, magazzino]);

  const refresh = useCallback(async () => {
    if (!db || !magazzino || !online || fetching.current) return;
    fetching.current = true;
    try {
      const fresh = await client.fetchQuery({ ...trpc.arrivals.expected.queryOptions({ magazzino: Number(magazzino) }), staleTime: 0 });
      copyRef.current = fresh;
      setCopy(fresh);
      await db.put("attesi", magazzino, fresh);
    } catch {
      // No answer: the copy kept stays, with its age.
    } finally {
      fetching.current = false;
    }
  }, [client, trpc, db, magazzino, online]);

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

  return { copy, copyRef, refresh: refreshSoon };
}
