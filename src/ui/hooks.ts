"use client";
import { useQuery } from "@tanstack/react-query";
import { useSessionStorage } from "@mantine/hooks";
import { useTRPC } from "./trpc";

/**
 * State kept for the browser tab's session (sessionStorage, under `banchina.<key>`): the delivery note, the
 * warehouse, the arrivals list. Read after mounting, as the server renders `initial`.
 */
export function useRemembered<T>(key: string, initial: T): [T, (v: T | ((old: T) => T)) => void] {
  const [value, setValue] = useSessionStorage<T>({
    key: `banchina.${key}`,
    defaultValue: initial,
    // A tab's own state: no syncing between hooks of the same key.
    sync: false,
    deserialize: (raw) => {
      if (raw === undefined) return initial;
      try {
        return JSON.parse(raw) as T;
      } catch {
        // A corrupt entry is as good as none.
        return initial;
      }
    },
  });
  return [value, setValue];
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
