import { Prisma, type PrismaClient } from "../../db/client";
import { first, rows } from "../../db/sql";
import { businessDate } from "../../lib/dates";
import * as q from "./ledger.queries";
import * as lq from "./location-balances.queries";
import { holdsNotCovered } from "./uncover";

/**
 * The ledger check (`npm run -s cli -- verify`): everything maintained alongside the ledger is
 * recomputed from it and compared. Set-based; read-only; one snapshot (REPEATABLE READ) so that
 * writers running meanwhile cannot make a consistent database look inconsistent. Location stock
 * (`giacenze_ubicazioni`) is recomputed by (article, location, lot), and a warehouse that manages
 * locations must hold each article's whole balance in its locations. The monthly net changes that as-of
 * availability starts from (`movimenti_mensili`) are recomputed by (article, warehouse, location, month).
 * The reservations' holds (docs/api.md section 14) are checked against the stock: of every (article, warehouse),
 * and of every lot held, what the holding reservations hold less what they mark `scoperta` is at most what can
 * cover it (banchina_copribile, banchina_lotto_copribile as of `oggi`, the service's business date).
 */

export interface Difference {
  tipo:
    | "giacenza"
    | "lotto"
    | "riga_ordine"
    | "stato_ordine"
    | "giacenza_ubicazione"
    | "giacenza_senza_ubicazione"
    | "movimenti_mensili"
    | "prenotazioni_scoperte";
  chiave: string;
  atteso: string;
  trovato: string;
}

export interface VerifyReport {
  ok: boolean;
  controllati: {
    giacenze: number;
    lotti: number;
    righe_ordine: number;
    ordini: number;
    movimenti: number;
    giacenze_ubicazioni: number;
  };
  differenze: Difference[];
}

/** `timeZone`: the service's (SERVICE_TIME_ZONE), which tells today's date and so the lots past their expiry. */
export async function verifyLedger(prisma: PrismaClient, opts: { timeZone?: string } = {}): Promise<VerifyReport> {
  const oggi = businessDate(opts.timeZone ?? "Europe/Rome");
  return prisma.$transaction(
    async (tx) => {
      const balances = await rows(tx, q.balanceDifferences());
      const monthly = await rows(tx, q.monthlyDifferences());
      const lots = await rows(tx, q.lotDifferences());
      const orderRows = await rows(tx, q.orderRowDifferences());
      const orders = await rows(tx, q.orderStateDifferences());
      const locations = await rows(tx, lq.locationDifferences());
      const unlocated = await rows(tx, lq.unlocatedStock());
      const uncovered = await holdsNotCovered(tx, oggi);
      const counts = { ...(await first(tx, q.ledgerCounts()))!, giacenze_ubicazioni: (await first(tx, lq.locationStockCount()))!.n };
      const differenze: Difference[] = [
        ...balances.map((b) => ({
          tipo: "giacenza" as const,
          chiave: `articolo ${b.articolo} magazzino ${b.magazzino}`,
          atteso: b.ledger,
          trovato: b.saldo,
        })),
        ...monthly.map((m) => ({
          tipo: "movimenti_mensili" as const,
          chiave: `articolo ${m.articolo} magazzino ${m.magazzino} ubicazione ${m.ubicazione || "-"} mese ${m.mese}`,
          atteso: m.ledger,
          trovato: m.mensile,
        })),
        ...lots.map((l) => ({ tipo: "lotto" as const, chiave: `lotto ${l.lotto} (${l.codice})`, atteso: l.ledger, trovato: l.residua })),
        ...orderRows.map((r) => ({ tipo: "riga_ordine" as const, chiave: `riga ${r.riga}`, atteso: r.arrivi, trovato: r.arrivata })),
        ...orders.map((o) => ({ tipo: "stato_ordine" as const, chiave: `ordine ${o.ordine}`, atteso: o.atteso, trovato: o.stato })),
        ...locations.map((l) => ({
          tipo: "giacenza_ubicazione" as const,
          chiave: `articolo ${l.articolo} ubicazione ${l.ubicazione} lotto ${l.lotto ?? "-"}`,
          atteso: l.ledger,
          trovato: l.quantita,
        })),
        ...unlocated.map((u) => ({
          tipo: "giacenza_senza_ubicazione" as const,
          chiave: `articolo ${u.articolo} magazzino ${u.magazzino}`,
          atteso: u.saldo,
          trovato: u.ubicazioni,
        })),
        // Expected: held − scoperta within what can cover it; found: what the rows hold uncovered-free.
        ...uncovered.map((u) => ({
          tipo: "prenotazioni_scoperte" as const,
          chiave: `articolo ${u.articolo_id} magazzino ${u.magazzino_id}${u.lotto_id === null ? "" : ` lotto ${u.lotto_id}`}`,
          atteso: `al più ${u.copribile} coperte`,
          trovato: `${u.tenuta} prenotate, ${u.scoperta} scoperte`,
        })),
      ];
      return { ok: differenze.length === 0, controllati: counts, differenze };
    },
    { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, maxWait: 10_000, timeout: 600_000 },
  );
}
