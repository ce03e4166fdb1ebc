import "server-only";
import { dehydrate, QueryClient, type QueryKey } from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { forbidden, redirect } from "next/navigation";
import type { ReactNode } from "react";
import { hasRole, type Role } from "@/server/modules/auth/actor";
import type { ResolvedSession } from "@/server/modules/auth/sessions.types";
import { createContextInner } from "@/server/trpc/context";
import { type AppRouter, appRouter } from "@/server/trpc/router";
import { PrefetchedCache } from "@/ui/prefetched-cache";
import { currentSession } from "./session";

/**
 * The door of every operator screen (its page.tsx): signed out, to sign-in and back here afterwards
 * (`?dopo=`, which sign-in checks against the known screens); a role below the screen's, 403 with the
 * "not allowed" page (forbidden.tsx), as the procedures would answer.
 */
export async function openScreen(path: string, role: Role = "operatore"): Promise<ResolvedSession> {
  const session = await currentSession();
  if (!session) redirect(`/accesso?dopo=${encodeURIComponent(path)}`);
  if (!hasRole(session.actor, role)) forbidden();
  return session;
}

type ServerTrpc = TRPCOptionsProxy<AppRouter>;
/** A query to run before the screen renders: tRPC's queryOptions of one of the screen's first reads. */
type Prefetch = { queryKey: QueryKey };

/**
 * The screen's first reads, made on the server while the page renders, by the same procedures (and
 * role checks) as the browser's, as the signed-in user; their answers travel with the page and fill
 * the browser's query cache under the same keys (PrefetchedCache: also when the cache holds an older
 * copy, and whatever the browser's clock says), so a screen shows its data with its first paint:
 * no request after the JavaScript has loaded, no waterfall. A read that fails here is left to the
 * browser, which asks again and shows its error.
 *
 * Not streamed behind a Suspense fallback: React keeps the streamed screen hidden beside the fallback
 * for a moment before revealing it, two copies of every field, and the scan field's focus with them.
 */
export async function Prefetched({
  session,
  queries,
  children,
}: {
  session: ResolvedSession;
  queries: (trpc: ServerTrpc) => Prefetch[];
  children: ReactNode;
}) {
  // Not kept between requests: a request's reads are its user's.
  const queryClient = new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: false } } });
  const ctx = () => createContextInner({ channel: "trpc", actor: session.actor });
  const trpc = createTRPCOptionsProxy<AppRouter>({ router: appRouter, ctx, queryClient });
  await Promise.all(queries(trpc).map((q) => queryClient.prefetchQuery(q as Parameters<QueryClient["prefetchQuery"]>[0])));
  return <PrefetchedCache state={dehydrate(queryClient)}>{children}</PrefetchedCache>;
}
