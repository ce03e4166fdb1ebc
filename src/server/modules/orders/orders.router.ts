import { readProcedure, router } from "../../trpc/init";
import { getOrderInput, listOrdersInput, listOrdersOutput, printableOrderOutput } from "./orders.schemas";
import { getPrintableOrder, listOrders } from "./orders.service";
import { syncParse } from "../../lib/zod";

/** Purchase orders for the screens: choosing one, and printing its row labels (tRPC only). */
export const ordersRouter = router({
  list: readProcedure
    .input(syncParse(listOrdersInput))
    .output(syncParse(listOrdersOutput))
    .query(({ ctx, input }) => listOrders(ctx.db, input)),
  printable: readProcedure
    .input(syncParse(getOrderInput))
    .output(syncParse(printableOrderOutput))
    .query(({ ctx, input }) => getPrintableOrder(ctx.db, input.id)),
});
