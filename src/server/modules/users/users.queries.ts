import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** Two administrators demoting each other at once must not both succeed: one table lock for the check. */
export const lockUsers = () => query<never>(Prisma.sql`LOCK TABLE utenti IN SHARE ROW EXCLUSIVE MODE`);
