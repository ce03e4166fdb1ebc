import type { Tx } from "../../db/client";
import { rows } from "../../db/sql";
import type { Actor } from "../auth/actor";
import { registerArrivals } from "../arrivals/register.service";
import { createSale } from "../sales/sales.service";
import * as q from "./demo.queries";

/**
 * What a demo warehouse has already lived through, written through the ordinary services so that a
 * newcomer finds a partly received order and a few sales documents: an order in every state, and
 * sales in every list.
 */
export async function seedDemoActivity(
  tx: Tx,
  opts: {
    actor: Actor;
    timeZone: string;
    ids: { magazzini: Record<string, number>; ordini: Record<string, number>; clienti: Record<string, number> };
    addDays: (days: number) => string;
  },
): Promise<void> {
  const { actor, timeZone, ids } = opts;
  const righe = await rows(tx, q.orderRows(ids.ordini["OA-0002"]!));
  // OA-0002 partly received: part of the oil (a lot with its expiry) and all the coffee.
  const arrival = await registerArrivals(
    tx,
    actor,
    {
      magazzino: ids.magazzini["BO-CENTRALE"]!,
      ddt: "DDT-ALT-1187",
      righe: [
        { riga: righe[0]!.id, quantita: 24, lotto: "L2611B", scadenza: opts.addDays(400) },
        { riga: righe[3]!.id, lotto: "CG-4502", scadenza: opts.addDays(300) },
      ],
    },
    { timeZone },
  );
  assertAll("arrivi", arrival as { rifiutate?: number });

  const bologna = ids.magazzini["BO-CENTRALE"]!;
  const sales = [
    {
      tipo: "ddt" as const,
      cliente: "C0001",
      righe: [
        { codice: "VITE-TE-M6X40", quantita: 4, prezzo: "0.18", aliquota_iva: "22" },
        { codice: "TASS-NYL-8", quantita: 10, prezzo: "0.09", sconto: "5", aliquota_iva: "22" },
      ],
    },
    {
      tipo: "fattura" as const,
      cliente: "C0002",
      righe: [
        { codice: "OLIO-EVO-1L", quantita: 6, prezzo: "8.9", aliquota_iva: "4", lotto: "L2611A" },
        { codice: "SPAGHETTI-500", quantita: 24, prezzo: "0.95", aliquota_iva: "4", lotto: "P2610-14" },
      ],
    },
    { tipo: "scontrino" as const, cliente: "C0003", righe: [{ codice: "NASTRO-AM-50", quantita: 2, prezzo: "3.5", aliquota_iva: "22" }] },
  ];
  for (const s of sales) {
    await createSale(tx, actor, { tipo: s.tipo, cliente: ids.clienti[s.cliente]!, magazzino: bologna, righe: s.righe }, { timeZone });
  }
}

function assertAll(what: string, body: { rifiutate?: number }) {
  // The demo data is ours: a refusal is a bug in it, not something to start half-seeded with.
  if ((body.rifiutate ?? 0) > 0) throw new Error(`Dati dimostrativi incoerenti (${what}): ${JSON.stringify(body)}`);
}
