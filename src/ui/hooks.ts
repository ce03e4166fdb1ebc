"use client";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { useTRPC } from "./trpc";

/** State kept for the browser tab's session (sessionStorage): the delivery note, the warehouse, the arrivals list. */
export function useRemembered<T>(key: string, initial: T): [T, (v: T | ((old: T) => T)) => void] {
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    try {
      const raw = sessionStorage.getItem(`banchina.${key}`);
      if (raw !== null) setValue(JSON.parse(raw) as T);
    } catch {
      // A corrupt entry is as good as none.
    }
  }, [key]);
  const set = useCallback(
    (v: T | ((old: T) => T)) =>
      setValue((old) => {
        const next = typeof v === "function" ? (v as (o: T) => T)(old) : v;
        try {
          sessionStorage.setItem(`banchina.${key}`, JSON.stringify(next));
        } catch {
          // Private mode or full storage: the value still lives in memory.
        }
        return next;
      }),
    [key],
  );
  return [value, set];
}

export function useWarehouses() {
  const trpc = useTRPC();
  const q = useQuery(trpc.catalogue.warehouses.queryOptions(undefined, { staleTime: 60_000 }));
  const magazzini = q.data?.magazzini ?? [];
  return {
    magazzini,
    options: magazzini.map((m) => ({ value: String(m.id), label: `${m.codice} — ${m.nome}` })),
    /** Code only, for a half-width field on a handheld. */
    shortOptions: magazzini.map((m) => ({ value: String(m.id), label: m.codice })),
    nameOf: (id: number | null | undefined) => magazzini.find((m) => m.id === id)?.codice ?? (id == null ? "—" : `#${id}`),
    loading: q.isLoading,
  };
}
