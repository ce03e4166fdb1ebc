import type { NewestSalesParams } from "@/server/modules/sales/sales.schemas";

export const SALES_PAGE = 50;

/**
 * The input of one page of sales.newest: the documents older than `before` (null: the newest page).
 * Shared by the page, which prefetches the first page on the server, and the screen (a client module,
 * whose values a server component cannot import), so both ask under one query key.
 */
export function salesPageInput(before: number | null): NewestSalesParams {
  return { limite: String(SALES_PAGE), ...(before === null ? {} : { prima: String(before) }) };
}
