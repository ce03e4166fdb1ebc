import type { NewestMovementsParams } from "@/server/modules/movements/movements.schemas";

export const MOVEMENTS_PAGE = 50;

/** The movements screen's filters, as the strings the procedure takes. */
export type MovementFilters = Omit<NewestMovementsParams, "limite" | "prima">;

/**
 * The input of one page of movements.newest: the rows older than `before` (null: the newest page).
 * Shared by the page, which prefetches the first page on the server, and the screen (a client module,
 * whose values a server component cannot import), so both ask under one query key.
 */
export function movementsPageInput(filters: MovementFilters, before: number | null): NewestMovementsParams {
  return { ...filters, limite: String(MOVEMENTS_PAGE), ...(before === null ? {} : { prima: String(before) }) };
}
