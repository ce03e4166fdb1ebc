"use client";
import { MutationObserver, type UseMutationOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSessionStorage } from "@mantine/hooks";
import { useEffect, useMemo, useState } from "react";
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
  // Built once per answer, not per render: a memoised part given the same list or function does not render again.
  const lists = useMemo(() => {
    const magazzini = q.data?.magazzini ?? [];
    return {
      magazzini,
      options: magazzini.map((m) => ({ value: String(m.id), label: `${m.codice} — ${m.nome}` })),
      /** Code only, for a half-width field on a handheld. */
      shortOptions: magazzini.map((m) => ({ value: String(m.id), label: m.codice })),
      nameOf: (id: number | null | undefined) => magazzini.find((m) => m.id === id)?.codice ?? (id == null ? "—" : `#${id}`),
    };
  }, [q.data]);
  return { ...lists, loading: q.isLoading };
}

/**
 * A mutation called without watching it: `useMutation` renders its component again at every change of the
 * call (pending, then settled), and on a screen whose state is one hook that is the whole screen, twice a
 * call. The call still goes through the mutation cache (the redirect of an ended session in providers.tsx
 * sees its errors; a component that shows it running reads it with `useIsMutating`). Answers like
 * `mutateAsync`: the result, or the call's error thrown.
 */
export function useMutationCall<TData, TError, TVariables, TContext>(
  options: UseMutationOptions<TData, TError, TVariables, TContext>,
): (variables: TVariables) => Promise<TData> {
  const client = useQueryClient();
  const [observer] = useState(() => new MutationObserver(client, options));
  useEffect(() => observer.setOptions(options), [observer, options]);
  return observer.mutate;
}
