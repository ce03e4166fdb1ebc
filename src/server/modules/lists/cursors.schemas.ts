import { z } from "zod";

/** GET /cursori (docs/api.md section 9): where a client starts each list and feed "from now". */

/** No parameter: an unknown one is `filtro_non_valido`, as on every list. */
export const startingCursorsInput = z.strictObject({});

const idCursor = (list: string) =>
  z
    .number()
    .int()
    .meta({ description: `Il \`dopo\` da cui leggere ${list}: ciò che è confermato dopo questa risposta ha id (sequenza) maggiore` });

const feedCursors = (list: string) =>
  z
    .object({
      dopo: idCursor(list),
      modificati_dopo: z
        .number()
        .int()
        .meta({ description: `Il \`modificati_dopo\` da cui leggere il feed delle modifiche di ${list}` }),
    })
    .meta({ description: `${list}: il cursore per id e quello del feed delle modifiche` });

export const startingCursorsOutput = z.object({
  movimenti: idCursor("GET /movimenti"),
  documenti_vendita: idCursor("GET /documenti-vendita"),
  clienti: feedCursors("GET /clienti"),
  articoli: feedCursors("GET /articoli"),
  fornitori: feedCursors("GET /fornitori"),
  magazzini: feedCursors("GET /magazzini"),
  ordini_acquisto: feedCursors("GET /ordini-acquisto"),
  ubicazioni: feedCursors("GET /ubicazioni"),
  avvisi_spedizione: feedCursors("GET /avvisi-spedizione"),
  differenze_ricevimento: idCursor("GET /differenze-ricevimento"),
  prenotazioni: feedCursors("GET /prenotazioni"),
  eventi: idCursor("GET /eventi"),
});
export type StartingCursors = z.infer<typeof startingCursorsOutput>;
