"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import type { UserDb, UserStore } from "./local-db";

/**
 * A copy of the service's data kept on the handheld for scans in a dead spot (the user's IndexedDB, `store`
 * under `key`; null: no copy), read back whenever the key changes. `copyRef` is what a scan reads (never a
 * stale render's), `copy` what the screen shows, `settled` true once the kept one has been looked for, found
 * or not: a code read before the screen ran waits for it (useCodeTypedBeforeStart) instead of meeting no
 * copy. `keep` puts a fresher copy in place, and on the device.
 */
export function useKeptCopy<T>(db: UserDb | null, store: UserStore, key: string | null) {
  const [copy, setCopy] = useState<T | null>(null);
  const copyRef = useRef<T | null>(null);
  const [settled, setSettled] = useState(false);

  useEffect(() => {
    copyRef.current = null;
    setCopy(null);
    setSettled(false);
    if (!db) return;
    if (key === null) return setSettled(true);
    let live = true;
    const done = () => live && setSettled(true);
    void db.get(store, key).then((kept) => {
      // A fresh copy fetched meanwhile is newer than the one kept.
      if (live && kept && !copyRef.current) {
        copyRef.current = kept as T;
        setCopy(kept as T);
      }
      done();
    }, done);
    return () => {
      live = false;
    };
  }, [db, store, key]);

  const keep = useCallback(
    async (fresh: T) => {
      copyRef.current = fresh;
      setCopy(fresh);
      if (db && key !== null) await db.put(store, key, fresh);
    },
    [db, store, key],
  );

  return { copy, copyRef, settled, keep };
}
