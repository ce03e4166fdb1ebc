import type { NewestReservationsParams } from "@/server/modules/reservations/reservations-screens.schemas";

export const RESERVATIONS_PAGE = 20;

export type ReservationFilters = Omit<NewestReservationsParams, "prima" | "limite">;

/**
 * The input of one page of reservations.newest: the reservations older than `before` (null: the newest page).
 * Shared by the page, which prefetches the first page on the server, and the screen (a client module, whose
 * values a server component cannot import), so both ask under one query key.
 */
export function reservationsPageInput(filters: ReservationFilters, before: number | null): NewestReservationsParams {
  return { ...filters, limite: String(RESERVATIONS_PAGE), ...(before === null ? {} : { prima: String(before) }) };
}
