import { z } from "zod";
import { queryDate, queryInt } from "../../lib/zod";

/** The common list parameters and page shape (docs/api.md section 4), shared by the lists' schemas; the mechanism is in lists.ts. */

export const listParams = (maxLimit: number) => ({
  limite: queryInt(1, maxLimit)
    .optional()
    .meta({ description: `Righe per pagina, 1..${maxLimit} (predefinito ${maxLimit})` }),
  dopo: queryInt(0, 2_147_483_647)
    .optional()
    .meta({ description: "Cursore: il `cursore` della pagina precedente; 0 o assente dall'inizio" }),
});

export const periodParams = {
  da: queryDate().optional().meta({ description: "Dal giorno (AAAA-MM-GG, incluso), sulla data di business" }),
  a: queryDate().optional().meta({ description: "Al giorno (AAAA-MM-GG, incluso), sulla data di business" }),
};

export const pageShape = { altri: z.boolean(), cursore: z.number().int() };

/**
 * A screen's newest-first read (tRPC only; the lists' sync order stays ascending): the cursor in (`what`
 * names the rows, "i movimenti") and the next page's out. The mechanism is `newestPage` in lists.ts.
 */
export const newestParams = (what: string) => ({
  prima: queryInt(1, 2_147_483_647)
    .optional()
    .meta({ description: `Cursore: ${what} con id minore di questo; assente dai più recenti` }),
});
export const newestShape = {
  prima: z.number().int().nullable().meta({ description: "Il `prima` della pagina successiva (meno recente); null all'ultima" }),
};
