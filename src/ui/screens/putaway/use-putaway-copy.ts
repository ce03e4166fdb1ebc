"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect } from "react";
import type { UserDb } from "../../offline/local-db";
import { useKeptCopy } from "../../offline/use-kept-copy";
import { useTRPC } from "../../trpc";
import type { PutawayCopy } from "./lookup";
import type { PutawayDbShape } from "./use-putaway-queue";

const REFRESH_MS = 60_000;
const copyKey = (magazzino: string) => `stoccaggio.copia.${magazzino}`;

/**
 * The handheld's copy of the warehouse for putaway (putaway.worklist): kept in the user's IndexedDB, so a
 * dead spot still reads goods and location labels; fetched again while online every minute, at a change
 * of warehouse and when asked (after a putaway, or a code the copy does not know). `refresh` answers the
 * fresh copy, or null when the service did not answer.
 */
export function usePutawayCopy(magazzino: string | null, db: UserDb<PutawayDbShape> | null, online: boolean) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const { copy, copyRef, settled, keep } = useKeptCopy<PutawayCopy>(db, "stato", magazzino === null ? null : copyKey(magazzino));

  const refresh = useCallback(async (): Promise<PutawayCopy | null> => {
    if (!db || !magazzino || !online) return null;
    try {
      const fresh = await client.fetchQuery({ ...trpc.putaway.worklist.queryOptions({ magazzino: Number(magazzino) }), staleTime: 0 });
      await keep(fresh);
      return fresh;
    } catch {
      // No answer: the copy kept stays, with its age.
      return null;
    }
  }, [client, trpc, db, magazzino, online, keep]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  return { copy, copyRef, refresh, settled };
}
