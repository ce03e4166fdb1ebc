"use client";
import { MutationObserver, type UseMutationOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useLocalStorage } from "@mantine/hooks";
import { useEffect, useMemo, useRef, useState } from "react";
import { warehouseLabel } from "./format";
import { useUser } from "./session-context";
import { useTRPC } from "./trpc";

/**
 * State kept for the signed-in user on this device (localStorage, under `banchina.u<id>.<key>`): the
 * delivery note, the warehouse, the receiving screen's row and codes waiting. Per user, so that the next
 * user of a shared handheld starts clean, and wiped at sign-out (forgetUserState); kept across a reload, a
 * closed tab and a restarted browser. Read after mounting, as the server renders `initial`.
 */
export function useRemembered<T>(key: string, initial: T): [T, (v: T | ((old: T) => T)) => void] {
  const user = useUser();
  const [value, setValue] = useLocalStorage<T>({
    key: userStateKey(user.id, key),
    defaultValue: initial,
    // One screen at a time uses a key: no syncing between hooks (nor tabs) of the same key.
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

export const userStateKey = (userId: number, key: string) => `banchina.u${userId}.${key}`;

/** Sign-out: everything a user left on this device goes (the next user of the handheld inherits nothing). */
export function forgetUserState(userId: number): void {
  const prefix = userStateKey(userId, "");
  for (const k of Object.keys(localStorage)) if (k.startsWith(prefix)) localStorage.removeItem(k);
  // The state of the versions before it was kept per user: a tab's, in sessionStorage.
  for (const k of Object.keys(sessionStorage)) if (k.startsWith("banchina.")) sessionStorage.removeItem(k);
}

/**
 * Text typed into a controlled field before the screen ran (a slow handheld draws the page from the server
 * first) is in the field but not in the state, and the next render would wipe it: it is taken into the
 * state once, as the screen starts.
 */
export function useTypedBeforeStart(ref: React.RefObject<HTMLInputElement | null>, set: (value: string) => void): void {
  const latest = useRef(set);
  latest.current = set;
  useEffect(() => {
    const typed = ref.current?.value;
    if (typed) latest.current(typed);
  }, [ref]);
}

/**
 * A code read before the screen ran: the server draws the scan field with the caret in it (`autoFocus`), so a
 * scan fired while the page's script still loads is typed there and its Enter does nothing (the field is in
 * no form). The code is taken out of the field as the screen starts (the next scan must not be read glued to
 * it) and handed to `read` one render later, once what the screen keeps on the device (its warehouse, the
 * task shown) has been read back, and `ready` (what else the screen reads codes against, such as putaway's
 * copy of the warehouse): it is read as any scan would be then.
 */
export function useCodeTypedBeforeStart(ref: React.RefObject<HTMLInputElement | null>, read: (code: string) => void, ready = true): void {
  const latest = useRef(read);
  latest.current = read;
  const [typed, setTyped] = useState<string | null>(null);
  useEffect(() => {
    const el = ref.current;
    const code = el?.value.trim();
    if (!el || !code) return;
    el.value = "";
    setTyped(code);
  }, [ref]);
  useEffect(() => {
    if (typed === null || !ready) return;
    setTyped(null);
    latest.current(typed);
  }, [typed, ready]);
}

export function useWarehouses() {
  const trpc = useTRPC();
  const q = useQuery(trpc.catalogue.warehouses.queryOptions(undefined, { staleTime: 60_000 }));
  // Built once per answer, not per render: a memoised part given the same list or function does not render again.
  const lists = useMemo(() => {
    const magazzini = q.data?.magazzini ?? [];
    return {
      magazzini,
      options: magazzini.map((m) => ({ value: String(m.id), label: warehouseLabel(m) })),
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
