import type pg from "pg";
import * as alignmentQueries from "../../src/server/modules/ledger/count.queries";
import { ledgerAppend, lotLockOrder, type LedgerRow } from "../../src/server/modules/ledger/ledger.service";
import { Decimal } from "../../src/server/lib/decimal";
import { appendAndUncover, benchKey, inTransaction, run } from "./statements";

/**
 * POST /giacenze/allinea (alignment.service.ts alignStock, writing): the same set-based statements in the
 * same order: articles by code; missing lots created, then the lots locked and read in lot lock order;
 * missing balances created, then locked and read; counted lots set; the ledger's one statement.
 * Left out (ours): authentication, the warehouse check (the service's article lookup does it in the
 * same statement), validation of 10,000 rows, the response of 10,000 rows.
 */
export async function align(
  c: pg.ClientBase,
  input: { magazzino: number; righe: { codice: string; contato: number; lotto?: string }[]; data: string; chiave: number },
): Promise<{ scritte: number; invariate: number }> {
  const magazzino = input.magazzino;
  return inTransaction(c, async () => {
    const codici = [...new Set(input.righe.map((r) => r.codice))];
    const arts = await c.query<{ id: number; codice: string; gestione_lotti: boolean }>({
      name: "load_articles",
      text: `SELECT id, codice, ean, descrizione, gestione_lotti, ha_varianti FROM articoli WHERE codice = ANY($1::text[]) OR ean = ANY($2::text[])`,
      values: [codici, []],
    });
    const byCode = new Map(arts.rows.map((a) => [a.codice, a]));
    const units = input.righe.map((r, indice) => ({
      indice,
      article: byCode.get(r.codice)!,
      lotto: r.lotto ?? null,
      contato: String(r.contato),
    }));
    const plain = units.filter((u) => u.lotto === null);
    const lotted = units.filter((u) => u.lotto !== null).sort(lotLockOrder);
    const articleIds = [...new Set(units.map((u) => u.article.id))].sort((a, b) => a - b);
    const current = new Map<string, { quantita: string; lotId?: number }>();
    const key = (a: number, l: string | null) => `${a}\u0000${l ?? ""}`;
    if (lotted.length > 0) {
      const articoli = lotted.map((u) => u.article.id);
      const lotti = lotted.map((u) => u.lotto!);
      await run(c, "align_missing_lots", alignmentQueries.createMissingLots(magazzino, articoli, lotti));
      const lots = await run(c, "align_lock_lots", alignmentQueries.lots(magazzino, articoli, lotti, true));
      for (const l of lots.rows) current.set(key(l.articolo_id, l.codice), { quantita: l.residua.toString(), lotId: l.id });
    }
    if (articleIds.length > 0) {
      await run(c, "align_missing_balances", alignmentQueries.createMissingBalances(magazzino, articleIds));
    }
    if (plain.length > 0 || articleIds.length > 0) {
      const balances = await run(c, "align_lock_balances", alignmentQueries.balances(magazzino, articleIds, true));
      for (const b of balances.rows)
        if (!current.has(key(b.articolo_id, null))) current.set(key(b.articolo_id, null), { quantita: b.quantita.toString() });
    }

    const ledger: LedgerRow[] = [];
    const lotUpdates: { id: number; residua: string }[] = [];
    let invariate = 0;
    for (const u of units) {
      const now = current.get(key(u.article.id, u.lotto));
      const delta = new Decimal(u.contato).minus(now?.quantita ?? 0);
      if (delta.isZero()) {
        invariate++;
        continue;
      }
      if (now?.lotId !== undefined) lotUpdates.push({ id: now.lotId, residua: u.contato });
      ledger.push({
        natura: delta.isPositive() ? "carico" : "scarico",
        magazzino,
        articolo: u.article.id,
        quantita: delta.toFixed(),
        prezzo: null,
        lotto: now?.lotId ?? null,
      });
    }
    if (ledger.length > 0) {
      if (lotUpdates.length > 0) {
        await run(
          c,
          "align_set_lots",
          alignmentQueries.setLotResiduals(
            lotUpdates.map((l) => l.id),
            lotUpdates.map((l) => l.residua),
          ),
        );
      }
      await appendAndUncover(
        c,
        "append_ledger",
        ledgerAppend(
          {
            operazione: "nuova",
            origine: "correzione",
            causale: "Allineamento inventario",
            data: input.data,
            actor: benchKey(input.chiave),
          },
          ledger,
        ),
        ledger,
        input.data,
      );
    }
    return { scritte: ledger.length, invariate };
  });
}
