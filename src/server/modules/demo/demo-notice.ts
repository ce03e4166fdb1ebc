import type { Tx } from "../../db/client";
import { gtinCheckDigit } from "../../../lib/gtin";
import { upsertNotices } from "../notices/notices-upsert.service";

/** SSCC of the demo's pallets: extension 3, a demo company prefix, a serial, the GS1 check digit. */
const demoSscc = (serial: number) => {
  const body = `38012345${String(serial).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

/**
 * The demo's shipping notice (docs/api.md section 12): two pallets of order OA-0001, so a newcomer scans an SSCC
 * (or prints its label) on the receiving screen at once. A refusal is a bug in the demo data.
 */
export async function seedDemoNotice(tx: Tx): Promise<void> {
  const out = await upsertNotices(tx, {
    avvisi: [
      {
        numero: "DESADV-0001",
        fornitore: "FERR-EMILIA",
        magazzino: "BO-CENTRALE",
        colli: [
          {
            sscc: demoSscc(1),
            righe: [
              { ordine: "OA-0001", numero_riga: 1, quantita: 10 },
              { ordine: "OA-0001", numero_riga: 2, quantita: 5 },
            ],
          },
          {
            sscc: demoSscc(2),
            righe: [
              { ordine: "OA-0001", numero_riga: 4, quantita: 10 },
              { ordine: "OA-0001", numero_riga: 5, quantita: 12 },
            ],
          },
        ],
      },
    ],
  });
  if (out.rifiutati > 0) throw new Error(`Avviso dimostrativo incoerente: ${JSON.stringify(out.righe[0]?.errore)}`);
}
