import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/** Purchase orders by (supplier code, number), the key of an order, with their supplier's and warehouse's codes. */
export const purchaseOrdersByKey = (fornitori: string[], numeri: string[]) =>
  query<{ id: number; numero: string; data: Date; fornitore: string; magazzino: string }>(Prisma.sql`
    SELECT o.id, o.numero, o.data, f.codice AS fornitore, m.codice AS magazzino
      FROM ordini_acquisto o JOIN fornitori f ON f.id = o.fornitore_id JOIN magazzini m ON m.id = o.magazzino_id
     WHERE (f.codice, o.numero) IN (SELECT * FROM unnest(${fornitori}::text[], ${numeri}::text[]))`);

/** The rows of these orders, order by order in position order, quantities and prices as decimal text. */
export const purchaseOrderRows = (ordini: number[]) =>
  query<{ ordine_id: number; articolo: string; ordinata: string; prezzo: string }>(Prisma.sql`
    SELECT r.ordine_id, a.codice AS articolo, r.ordinata::text AS ordinata, r.prezzo::text AS prezzo
      FROM righe_ordine r JOIN articoli a ON a.id = r.articolo_id
     WHERE r.ordine_id = ANY(${ordini}::int[])
     ORDER BY r.ordine_id, r.posizione`);
