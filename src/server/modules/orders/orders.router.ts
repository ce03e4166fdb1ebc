import { readProcedure, router } from "../../trpc/init";
import { getOrderInput, listOrdersInput, listOrdersOutput, printableOrderOutput } from "./orders.schemas";
import { getPrintableOrder, listOrders } from "./orders.service";

/** Purchase orders for the screens: choosing one, and printing its row labels (tRPC only). */
export const ordersRouter = router({
  list: readProcedure.input(listOrdersInput).output(listOrdersOutput).query(({ ctx, input }) => listOrders(ctx.db, input)),
  printable: readProcedure.input(getOrderInput).output(printableOrderOutput).query(({ ctx, input }) => getPrintableOrder(ctx.db, input.id)),
});
