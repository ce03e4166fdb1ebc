import { Prisma, type PrismaClient } from "../../db/client";
import { first, rows } from "../../db/sql";
import * as q from "./ledger.queries";

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
      const balances = await rows(tx, q.balanceDifferences());
      const lots = await rows(tx, q.lotDifferences());
      const orderRows = await rows(tx, q.orderRowDifferences());
      const orders = await rows(tx, q.orderStateDifferences());
      const counts = (await first(tx, q.ledgerCounts()))!;
      const differenze: Difference[] = [
        ...balances.map((b) => ({
          tipo: "giacenza" as const,
          chiave: `articolo ${b.articolo} magazzino ${b.magazzino}`,
          atteso: b.ledger,
          trovato: b.saldo,
        })),
        ...lots.map((l) => ({ tipo: "lotto" as const, chiave: `lotto ${l.lotto} (${l.codice})`, atteso: l.ledger, trovato: l.residua })),
        ...orderRows.map((r) => ({ tipo: "riga_ordine" as const, chiave: `riga ${r.riga}`, atteso: r.arrivi, trovato: r.arrivata })),
        ...orders.map((o) => ({ tipo: "stato_ordine" as const, chiave: `ordine ${o.ordine}`, atteso: o.atteso, trovato: o.stato })),
      ];
      return { ok: differenze.length === 0, controllati: counts, differenze };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 600_000 },
  );
}
