import { syncParse } from "../../lib/zod";
import { readProcedure, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import {
  identifyInput,
  identifyOutput,
  putawayWarehousesOutput,
  storeInput,
  storeOutput,
  storePalletInput,
  storePalletOutput,
  worklistInput,
  worklistOutput,
} from "./putaway.schemas";
import { storePallet } from "./pallet-putaway.service";
import { identifyCode, putawayWarehouses, storeGoods, worklist } from "./putaway.service";

/**
 * The handheld's putaway (screen /stoccaggio, tRPC only): every role from operatore. The REST side of a
 * putaway is POST /movimenti (a transfer between two locations of one warehouse).
 */
export const putawayRouter = router({
  warehouses: readProcedure.output(syncParse(putawayWarehousesOutput)).query(({ ctx }) => putawayWarehouses(ctx.db)),

  worklist: readProcedure
    .input(syncParse(worklistInput))
    .output(syncParse(worklistOutput))
    .query(({ ctx, input }) => worklist(ctx.db, input.magazzino, ctx.config.SERVICE_TIME_ZONE)),

  // The inventory screen's scans (a location, then goods): a mutation only so that a scan is never cached.
  identify: readProcedure
    .input(syncParse(identifyInput))
    .output(syncParse(identifyOutput))
    .mutation(({ ctx, input }) => identifyCode(ctx.db, input.magazzino, input.codice)),

  store: writeProcedure
    .meta({ idempotencyPath: "/stoccaggio" })
    .input(syncParse(storeInput))
    .output(syncParse(storeOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await storeGoods(tx, ctx.actor, input, ctx.config.SERVICE_TIME_ZONE),
      })),
    ),

  // A pallet by its SSCC: one operation, one transfer per (article, lot); its own path for the key's record.
  storePallet: writeProcedure
    .meta({ idempotencyPath: "/stoccaggio/collo" })
    .input(syncParse(storePalletInput))
    .output(syncParse(storePalletOutput))
    .mutation(({ ctx, input }) =>
      idempotentWrite(ctx, { input }, async (tx) => ({
        status: 200,
        body: await storePallet(tx, ctx.actor, input, ctx.config.SERVICE_TIME_ZONE),
      })),
    ),
});
