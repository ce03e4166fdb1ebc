import { z } from "zod";
import { dateString, idNumber, instantString, rawNumber, shortText } from "../../lib/zod";

/** How the proposed destination was chosen (docs/api.md section 11, "Putaway"). */
export const PROPOSAL_REASONS = ["preferita", "lotto", "articolo"] as const;

export const putawayWarehousesOutput = z.object({
  magazzini: z.array(z.object({ id: z.number().int(), codice: z.string(), nome: z.string() })),
});

export const worklistInput = z.strictObject({ magazzino: idNumber() });

/** One (article, lot, receiving location) waiting to be put away, with its proposed destination. */
export const worklistRow = z.object({
  /** giacenze_ubicazioni.id: stable for the (article, location, lot). */
  id: z.number().int(),
  articolo: z.object({ id: z.number().int(), codice: z.string() }),
  descrizione: z.string(),
  ean: z.string().nullable(),
  unita: z.string(),
  confezione: z.string(),
  lotto: z.string().nullable(),
  scadenza: dateString().nullable(),
  ubicazione: z.string(),
  quantita: z.string(),
  arrivato_il: instantString(),
  proposta: z.object({ ubicazione: z.string(), motivo: z.enum(PROPOSAL_REASONS) }).nullable(),
});
export type WorklistRow = z.infer<typeof worklistRow>;

/**
 * What the handheld keeps of a warehouse to put goods away with or without the network: the goods in its
 * receiving locations (oldest arrival first), its locations (a destination scan is checked against them),
 * and the order rows whose `R<riga>` labels name those goods.
 */
export const worklistOutput = z.object({
  magazzino: z.number().int(),
  letto_il: instantString(),
  righe: z.array(worklistRow),
  ubicazioni: z.array(z.object({ codice: z.string(), tipo: z.enum(["ricevimento", "stoccaggio", "quarantena"]), attiva: z.boolean() })),
  etichette: z.array(z.object({ riga: z.number().int(), articolo: z.number().int() })),
  /** Pallets received and not yet put away by their SSCC: what of each is still in receiving, by row of `righe`. */
  colli: z.array(z.object({ sscc: z.string(), parti: z.array(z.object({ riga: z.number().int(), quantita: z.string() })) })),
});
export type WorklistOutput = z.infer<typeof worklistOutput>;

/** One putaway: what of an article (and lot) leaves a receiving location for its destination. */
export const storeInput = z.strictObject({
  magazzino: idNumber(),
  codice: shortText(64),
  lotto: shortText(64).nullable(),
  da: shortText(64),
  a: shortText(64),
  quantita: rawNumber(),
});
export type StoreInput = z.infer<typeof storeInput>;

export const storeOutput = z.object({
  operazione: z.number().int(),
  movimento: z.number().int(),
  movimento_origine: z.number().int(),
});

/** A pallet put away by its SSCC: all of what of it is still in receiving goes to one destination. */
export const storePalletInput = z.strictObject({ magazzino: idNumber(), sscc: shortText(64), a: shortText(64) });
export type StorePalletInput = z.infer<typeof storePalletInput>;

export const storePalletOutput = z.object({
  operazione: z.number().int(),
  sscc: z.string(),
  a: z.string(),
  /** One transfer per (article, lot). */
  righe: z.array(
    z.object({ articolo: z.string(), lotto: z.string().nullable(), da: z.string(), quantita: z.string(), movimento: z.number().int() }),
  ),
});
export type StorePalletOutput = z.infer<typeof storePalletOutput>;

/** A code read by a counting handheld (the inventory screen): a location of the warehouse, or an article. */
export const identifyInput = z.strictObject({ magazzino: idNumber(), codice: z.string().trim().min(1).max(200) });

export const identifyOutput = z.discriminatedUnion("tipo", [
  z.object({ tipo: z.literal("ubicazione"), ubicazione: z.object({ codice: z.string(), tipo: z.string(), attiva: z.boolean() }) }),
  z.object({
    tipo: z.literal("articolo"),
    articolo: z.object({
      id: z.number().int(),
      codice: z.string(),
      descrizione: z.string(),
      unita: z.string(),
      confezione: z.string(),
      gestione_lotti: z.boolean(),
    }),
    lotto: z.string().nullable(),
  }),
  z.object({ tipo: z.literal("sconosciuto"), motivo: z.string() }),
]);
export type IdentifyOutput = z.infer<typeof identifyOutput>;
