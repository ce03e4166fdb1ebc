import { alignmentRouter } from "../modules/alignment/alignment.router";
import { arrivalsRouter } from "../modules/arrivals/arrivals.router";
import { availabilityRouter } from "../modules/availability/availability.router";
import { clientsRouter } from "../modules/clients/clients.router";
import { lotsRouter } from "../modules/lots/lots.router";
import { movementsRouter } from "../modules/movements/movements.router";
import { salesRouter } from "../modules/sales/sales.router";
import { router } from "./init";

export const appRouter = router({
  movements: movementsRouter,
  lots: lotsRouter,
  clients: clientsRouter,
  arrivals: arrivalsRouter,
  alignment: alignmentRouter,
  availability: availabilityRouter,
  sales: salesRouter,
});

export type AppRouter = typeof appRouter;
