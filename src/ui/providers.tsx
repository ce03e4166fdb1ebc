"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from "@trpc/client";
import { useEffect, useState, type ReactNode } from "react";
import type { AppRouter } from "@/server/trpc/router";
import { describeError } from "./errors";
import { OfflineError, timedFetch } from "./offline/network";
import { listenToOtherTabs } from "./other-tabs";
import { TRPCProvider } from "./trpc";
import type { CallContext } from "./write-key";

function isUnauthenticated(e: unknown): boolean {
  return e instanceof TRPCClientError && (e.data as { codice?: string } | undefined)?.codice === "non_autenticato";
}

function noAnswerInTime(e: unknown): boolean {
  const code = describeError(e).codice;
  return code === "timeout" || code === "offline";
}

/** A session that ended (expired, signed out elsewhere, user deactivated): back to sign-in, then here again. */
function toSignIn(): void {
  const here = window.location.pathname + window.location.search;
  if (!window.location.pathname.startsWith("/accesso")) window.location.assign(`/accesso?dopo=${encodeURIComponent(here)}`);
}

/**
 * The session's CSRF token: from the page the service rendered, or (the offline shell, which holds none)
 * read from the service once it answers again.
 */
type Csrf = string | (() => Promise<string | undefined>) | undefined;

export function makeTrpcClient(csrf: Csrf) {
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        // Mutations one per request: each carries its own Idempotency-Key and the session's CSRF token.
        condition: (op) => op.type === "mutation",
        true: httpLink({
          url: "/api/trpc",
          // Bounded in time, and refused at once offline: src/ui/offline/network.ts.
          fetch: timedFetch,
          headers: async ({ op }) => {
            const h: Record<string, string> = {};
            const token = typeof csrf === "function" ? await csrf() : csrf;
            // The offline shell waits while the session's token is fetched; with none to be had (the service
            // unreachable) a write would be refused for good, so it is not sent, and fails as offline.
            if (typeof csrf === "function" && !token)
              throw new OfflineError("Offline: la sessione non è ancora stata verificata con il servizio.");
            if (token) h["x-csrf-token"] = token;
            const key = (op.context as CallContext).idempotencyKey;
            if (key) h["idempotency-key"] = key;
            return h;
          },
        }),
        false: httpBatchLink({ url: "/api/trpc", fetch: timedFetch }),
      }),
    ],
  });
}

export function TrpcProviders({ csrf, children }: { csrf?: Csrf; children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // "always": offline, a call runs and fails at once (timedFetch) instead of waiting, paused and
          // silent, for the browser's online event; the screen decides what to do with the failure.
          queries: {
            staleTime: 5_000,
            refetchOnWindowFocus: false,
            networkMode: "always",
            // A call that got no answer in 8 s is not asked again: the operator has waited long enough.
            retry: (count, e) => !isUnauthenticated(e) && !noAnswerInTime(e) && count < 1,
          },
          mutations: { networkMode: "always" },
        },
      }),
  );
  const [client] = useState(() => makeTrpcClient(csrf));
  // What another tab of this browser wrote is read again here (a cancellation shows in every open list).
  useEffect(() => listenToOtherTabs(queryClient), [queryClient]);
  // Any call answered 401 means the session is over.
  useState(() => {
    queryClient.getQueryCache().subscribe((ev) => {
      if (ev.type === "updated" && ev.action.type === "error" && isUnauthenticated(ev.action.error) && csrf) toSignIn();
    });
    queryClient.getMutationCache().subscribe((ev) => {
      if (ev.type === "updated" && ev.action.type === "error" && isUnauthenticated(ev.action.error) && csrf) toSignIn();
    });
    return null;
  });
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={client} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
