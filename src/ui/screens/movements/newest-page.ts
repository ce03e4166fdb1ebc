import type { TRPCOptionsProxy } from "@trpc/tanstack-react-query";
import type { MovementOutput } from "@/server/modules/movements/movements.schemas";
import type { AppRouter } from "@/server/trpc/router";
import { pageBefore } from "../../newest-first";

export const MOVEMENTS_PAGE = 50;

export interface MovementFilters {
  da?: string;
  a?: string;
  magazzino?: string;
  origine?: "api" | "schermo" | "vendita" | "arrivo" | "annullamento" | "correzione";
  operazione?: string;
  articolo?: string;
}

/** One call of the movements list (tRPC client in the browser, the server caller in a page). */
export type ListMovements = (input: MovementFilters & { limite: string; dopo: string }) => Promise<{ movimenti: MovementOutput[] }>;

/**
 * The query of one page of movements, newest first: the rows older than `before` (null: the newest
 * page), found by probing the list (newest-first.ts). The same on the server (the page prefetches the
 * first page) and in the browser; the probes are plain calls, not cached queries, so that only the
 * page found travels with the HTML.
 */
export function newestMovementsQuery(
  trpc: TRPCOptionsProxy<AppRouter>,
  list: ListMovements,
  filters: MovementFilters,
  before: number | null,
) {
  return {
    queryKey: [...trpc.movements.list.pathKey(), "recenti", filters, before ?? "ultimi"] as const,
    queryFn: () =>
      pageBefore(
        async (dopo) => (await list({ ...filters, limite: String(MOVEMENTS_PAGE + 1), dopo: String(dopo) })).movimenti,
        before ?? Number.POSITIVE_INFINITY,
        MOVEMENTS_PAGE,
      ),
  };
}
