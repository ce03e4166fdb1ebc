"use client";
import { useEffect, useRef, useState } from "react";
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
  // One write per burst of changes (a scan changes the codes waiting, the row and its fields in a few renders
  // of one task), after the task: the state a reload finds is the last one.
  const text = JSON.stringify(now);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (!db || !restored.current) return;
    clearTimeout(pending.current);
    pending.current = setTimeout(() => void db.put("stato", KEY, JSON.parse(text) as Kept), 0);
  }, [db, text]);
}

type Options = { value: string; label: string }[];

/**
 * The warehouses to choose from, kept on the device: offline (the shell has no data from the service) the
 * warehouse field still names the warehouse being received in.
 */
export function useKeptOptions(db: UserDb<DockDbShape> | null, fromService: Options): Options {
  const [kept, setKept] = useState<Options>([]);
  useEffect(() => {
    if (!db) return;
    if (fromService.length > 0) void db.put("stato", "magazzini", fromService);
    else void db.get("stato", "magazzini").then((o) => o && setKept(o as Options));
  }, [db, fromService]);
  return fromService.length > 0 ? fromService : kept;
}
