import { z } from "zod";
import { articoloRef, dateString, decimalString, pathId, queryInt } from "../../lib/zod";

export const listLotsInput = z.strictObject({
  id: pathId(),
  magazzino: queryInt(1, 2_147_483_647).meta({ description: "Id del magazzino (obbligatorio)" }),
});

export const listLotsOutput = z.object({
  articolo: articoloRef,
  magazzino: z.number().int(),
  lotti: z.array(z.object({ lotto: z.string(), scadenza: dateString().nullable(), residua: decimalString() })),
});
