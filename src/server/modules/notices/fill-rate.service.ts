import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import { canonical, Decimal } from "../../lib/decimal";
import { assertPeriod } from "../lists/lists";
import type { FillRateOutput } from "./notices.schemas";
import * as q from "./notices.queries";

/**
 * The fill rate (docs/api.md section 12): what the notices of a period announced against what their pallets'
 * standing receipts brought in, per supplier. It rates the notices, so it lives with them; the differences it
 * counts are the receiving room's (arrivals/differences.service.ts).
 */

/** Each supplier's fill rate (received over announced) over the notices of a period, with its differences by reason. */
export async function fillRates(db: Db, input: { da: string; a: string; fornitore?: number }): Promise<FillRateOutput> {
  assertPeriod(input.da, input.a);
  const found = await rows(db, q.fillRates(input.da, input.a, input.fornitore ?? null));
  return {
    fornitori: found.map((r) => ({
      fornitore: { id: r.fornitore_id, codice: r.fornitore_codice },
      annunciata: r.annunciata,
      ricevuta: r.ricevuta,
      tasso: fillRate(r.ricevuta, r.annunciata),
      differenze: r.differenze,
    })),
  };
}

/** Received over announced, to 4 decimals (half up), canonical; null when nothing was announced. */
export function fillRate(ricevuta: string, annunciata: string): string | null {
  const announced = new Decimal(annunciata);
  if (announced.isZero()) return null;
  return canonical(new Decimal(ricevuta).div(announced).toDecimalPlaces(4, Decimal.ROUND_HALF_UP));
}
