import { z } from "zod";
import { decimalString, queryDate, queryInt, shortText } from "../../lib/zod";
import { listParams, pageShape } from "../lists/lists.schemas";

export const MAX_AVAILABILITY_PAGE = 500;

// Strict: `da` has no meaning on a snapshot and is refused like any unknown parameter (docs/api.md section 4).
export const listAvailabilityInput = z.strictObject({
  ...listParams(MAX_AVAILABILITY_PAGE),
  a: queryDate()
    .optional()
    .meta({
      description:
        "Giacenza e `in_arrivo` com'erano alla fine di quel giorno (AAAA-MM-GG, data di business). La giacenza è la somma dei movimenti " +
        "fino a quel giorno; `in_arrivo` è quanto attendevano allora le righe degli ordini con data fino a quel giorno: il residuo di oggi " +
        "più quanto vi è arrivato dopo quel giorno (arrivi meno annullamenti, per data del movimento). Le quantità ordinate sono quelle " +
        "di oggi e una chiusura senza consegna vale per ogni giorno: il servizio non conserva la data delle sostituzioni d'ordine né delle chiusure.",
    }),
  cerca: z
    .string()
    .trim()
    .min(1, "non può essere vuoto")
    .max(100, "al massimo 100 caratteri")
    .optional()
    .meta({
      description:
        "Solo gli articoli il cui codice o la cui descrizione contiene questo testo (senza distinguere maiuscole e minuscole). " +
        "Il cursore resta l'id articolo: si pagina con `dopo` come senza filtro.",
    }),
  magazzino: queryInt(1, 2_147_483_647)
    .optional()
    .meta({ description: "Id magazzino: `giacenza` e `in_arrivo` di quel magazzino (ordini destinati a esso); `magazzini` omesso" }),
  articolo: queryInt(1, 2_147_483_647)
    .optional()
    .meta({ description: "Solo questo articolo (id; un modello risponde con le sue varianti); sconosciuto: 404" }),
  codice: shortText(64)
    .optional()
    .meta({ description: "Solo l'articolo con questo codice (un modello risponde con le sue varianti); sconosciuto: 404" }),
});
export type ListAvailabilityInput = z.infer<typeof listAvailabilityInput>;

/** Available-to-promise (docs/api.md section 14): today only, left out with `a` (holds have no history in the ledger). */
const promise = {
  prenotata: decimalString()
    .optional()
    .meta({ description: "Tenuto dalle prenotazioni attive e non scadute (orologio del database); omesso con `a`" }),
  scaduta: decimalString()
    .optional()
    .meta({ description: "Giacenza nei lotti con `scadenza` anteriore a oggi (fuso del servizio); omesso con `a`" }),
  disponibile: decimalString()
    .optional()
    .meta({
      description:
        "Disponibile da promettere: giacenza − (merce in ubicazioni `quarantena` o in lotti scaduti, ogni pezzo una volta) − `prenotata`, " +
        "mai sotto zero, per magazzino; la riga totale è la somma dei magazzini. Omesso con `a`",
    }),
};

export const availabilityRowOutput = z.object({
  articolo: z.object({ id: z.number().int(), codice: z.string(), descrizione: z.string() }),
  giacenza: decimalString(),
  in_arrivo: decimalString().meta({
    description:
      "Quantità ancora da ricevere sulle righe degli ordini d'acquisto non evasi; con `a`, quella attesa alla fine di quel giorno",
  }),
  in_quarantena: decimalString()
    .optional()
    .meta({
      description:
        "Quanto della giacenza si trova in ubicazioni di tipo `quarantena`: presente solo quando un magazzino della riga (quello del " +
        "filtro `magazzino`, o uno qualsiasi senza filtro) gestisce le ubicazioni; omesso altrimenti",
    }),
  ...promise,
  magazzini: z
    .array(
      z.object({
        magazzino: z.number().int(),
        giacenza: decimalString(),
        in_quarantena: decimalString().optional().meta({ description: "Solo per un magazzino che gestisce le ubicazioni" }),
        ...promise,
      }),
    )
    .optional()
    .meta({ description: "Giacenza in ogni magazzino (tutti, anche a zero), per id; omesso con il filtro `magazzino`" }),
});
export type AvailabilityRowOutput = z.infer<typeof availabilityRowOutput>;

export const listAvailabilityOutput = z.object({ disponibilita: z.array(availabilityRowOutput), ...pageShape });
