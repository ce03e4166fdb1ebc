import { Prisma, type PrismaClient } from "../../db/client";

/**
 * The ledger check (`npm run -s cli -- verify`): everything maintained alongside the ledger is
 * recomputed from it and compared. Set-based; read-only; one snapshot (REPEATABLE READ) so that
 * writers running meanwhile cannot make a consistent database look inconsistent.
 */

export interface Difference {
  tipo: "giacenza" | "lotto" | "riga_ordine" | "stato_ordine";
  chiave: string;
  atteso: string;
  trovato: string;
}

export interface VerifyReport {
  ok: boolean;
  controllati: { giacenze: number; lotti: number; righe_ordine: number; ordini: number; movimenti: number };
  differenze: Difference[];
}

export async function verifyLedger(prisma: PrismaClient): Promise<VerifyReport> {
  return prisma.$transaction(
    async (tx) => {
      const balances = await tx.$queryRaw<{ articolo: number; magazzino: number; ledger: string; saldo: string }[]>`
        SELECT COALESCE(l.articolo_id, g.articolo_id) AS articolo, COALESCE(l.magazzino_id, g.magazzino_id) AS magazzino,
               COALESCE(l.somma, 0)::text AS ledger, COALESCE(g.quantita, 0)::text AS saldo
          FROM (SELECT articolo_id, magazzino_id, sum(quantita) AS somma FROM movimenti GROUP BY 1, 2) l
          FULL JOIN giacenze g ON g.articolo_id = l.articolo_id AND g.magazzino_id = l.magazzino_id
         WHERE COALESCE(l.somma, 0) <> COALESCE(g.quantita, 0)`;
      const lots = await tx.$queryRaw<{ lotto: number; codice: string; ledger: string; residua: string }[]>`
        SELECT t.id AS lotto, t.codice, COALESCE(s.somma, 0)::text AS ledger, t.residua::text AS residua
          FROM lotti t LEFT JOIN (SELECT lotto_id, sum(quantita) AS somma FROM movimenti WHERE lotto_id IS NOT NULL GROUP BY 1) s
            ON s.lotto_id = t.id
         WHERE COALESCE(s.somma, 0) <> t.residua`;
      const rows = await tx.$queryRaw<{ riga: number; arrivi: string; arrivata: string }[]>`
        SELECT r.id AS riga, COALESCE(s.somma, 0)::text AS arrivi, r.arrivata::text AS arrivata
          FROM righe_ordine r LEFT JOIN (
            SELECT riferimento_id, sum(quantita) AS somma FROM movimenti
             WHERE riferimento_tipo = 'riga_ordine' AND origine IN ('arrivo', 'annullamento') GROUP BY 1) s
            ON s.riferimento_id = r.id
         WHERE COALESCE(s.somma, 0) <> r.arrivata
            OR r.stato <> CASE WHEN r.arrivata = r.ordinata THEN 'evasa' WHEN r.arrivata = 0 THEN 'aperta' ELSE 'parziale' END`;
      const orders = await tx.$queryRaw<{ ordine: number; atteso: string; stato: string }[]>`
        SELECT o.id AS ordine, s.atteso, o.stato FROM ordini_acquisto o JOIN (
          SELECT ordine_id, CASE WHEN bool_and(arrivata = ordinata) THEN 'evaso' WHEN bool_and(arrivata = 0) THEN 'aperto' ELSE 'parziale' END AS atteso
            FROM righe_ordine GROUP BY 1) s ON s.ordine_id = o.id
         WHERE s.atteso <> o.stato`;
      const [counts] = await tx.$queryRaw<VerifyReport["controllati"][]>`
        SELECT (SELECT count(*) FROM giacenze)::int AS giacenze, (SELECT count(*) FROM lotti)::int AS lotti,
               (SELECT count(*) FROM righe_ordine)::int AS righe_ordine, (SELECT count(*) FROM ordini_acquisto)::int AS ordini,
               (SELECT count(*) FROM movimenti)::int AS movimenti`;
      const differenze: Difference[] = [
        ...balances.map((b) => ({ tipo: "giacenza" as const, chiave: `articolo ${b.articolo} magazzino ${b.magazzino}`, atteso: b.ledger, trovato: b.saldo })),
        ...lots.map((l) => ({ tipo: "lotto" as const, chiave: `lotto ${l.lotto} (${l.codice})`, atteso: l.ledger, trovato: l.residua })),
        ...rows.map((r) => ({ tipo: "riga_ordine" as const, chiave: `riga ${r.riga}`, atteso: r.arrivi, trovato: r.arrivata })),
        ...orders.map((o) => ({ tipo: "stato_ordine" as const, chiave: `ordine ${o.ordine}`, atteso: o.atteso, trovato: o.stato })),
      ];
      return { ok: differenze.length === 0, controllati: counts!, differenze };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 600_000 },
  );
}
