import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

export const ping = () => query<{ "?column?": number }>(Prisma.sql`SELECT 1`);
