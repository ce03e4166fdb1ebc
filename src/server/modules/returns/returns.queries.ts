import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** The statements of returns to the supplier (docs/api.md section 12) that are not the stock writer's. */

export const suppliersByCode = (codici: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM fornitori WHERE codice = ANY(${codici}::text[])`);
