import { expect } from "@playwright/test";
import { api } from "./api";

/**
 * Shipping notices and their pallets (docs/api.md section 12), put in place through /api/v1 with a spec's key, as a
 * supplier's system would announce them. Each spec reads SSCCs of its own GS1 company prefix, so specs run
 * alone or in any order without one receiving another's pallet.
 */

/** A spec's SSCCs by serial, each valid: extension 3, the company prefix (seven digits), the serial, the GS1 check digit. */
export function ssccSeries(companyPrefix: string): (serial: number) => string {
  return (serial) => {
    const body = `3${companyPrefix}${String(serial).padStart(9, "0")}`;
    let sum = 0;
    for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += Number(body[i]) * w;
    return `${body}${(10 - (sum % 10)) % 10}`;
  };
}

interface PalletLine {
  ordine: string;
  numero_riga: number;
  quantita: number;
  lotto?: string;
  scadenza?: string;
}

interface Notice {
  numero: string;
  fornitore: string;
  magazzino: string;
  data_prevista?: string;
  colli: { sscc: string; righe: PalletLine[] }[];
}

/**
 * One notice through POST /api/v1/avvisi-spedizione. A worker restarted after a failure seeds again: the notice
 * is then there unchanged, or, once a pallet of it was received, refused as `avviso_in_ricevimento`; both are
 * the notice the spec asked for.
 */
export async function seedNotice(key: string, notice: Notice): Promise<void> {
  const r = await api(key, "POST", "/avvisi-spedizione", { avvisi: [notice] });
  const row = r.body?.righe?.[0] as { esito: string; errore?: { codice: string } } | undefined;
  const there = row?.esito === "creato" || row?.esito === "invariato" || row?.errore?.codice === "avviso_in_ricevimento";
  expect(r.status === 200 && there, JSON.stringify(r.body)).toBe(true);
}
