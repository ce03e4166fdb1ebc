"use client";
import { useEffect, useRef } from "react";
import type { UserDb } from "../../offline/local-db";
import type { ArrivalFields, Current } from "./types";
import type { DockDbShape } from "./use-arrival-queue";

/** The row shown and the codes waiting, kept for the user on this device. */
export interface Kept {
  current: Current | null;
  values: ArrivalFields;
  codes: string[];
}

const KEY = "ricevimento";

/**
 * Keeps the receiving screen's unfinished work in the user's IndexedDB ("stato"): read once when the
 * database opens (`restore` gets it), written at every change after that, never before (the first render's
 * empty screen must not overwrite what a reload is about to bring back). Wiped with the user's database at sign-out.
 */
export function useKeptRow(db: UserDb<DockDbShape> | null, now: Kept, restore: (k: Kept) => void) {
  const restored = useRef(false);
  const restoreRef = useRef(restore);
  restoreRef.current = restore;
  useEffect(() => {
    if (!db || restored.current) return;
    let live = true;
    void db.get("stato", KEY).then((k) => {
      if (!live) return;
      restored.current = true;
      if (k) restoreRef.current(k as Kept);
    });
    return () => {
      live = false;
    };
  }, [db]);
  const text = JSON.stringify(now);
  useEffect(() => {
    if (db && restored.current) void db.put("stato", KEY, JSON.parse(text) as Kept);
  }, [db, text]);
}
