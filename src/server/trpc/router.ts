import { alignmentRouter } from "../modules/alignment/alignment.router";
import { arrivalsRouter } from "../modules/arrivals/arrivals.router";
import { auditRouter } from "../modules/audit/audit.router";
import { apiKeysRouter } from "../modules/auth/api-keys.router";
import { sessionsRouter } from "../modules/auth/sessions.router";
import { catalogueRouter } from "../modules/catalogue/catalogue.router";
import { masterDataRouter } from "../modules/catalogue/master-data.router";
import { ordersRouter } from "../modules/orders/orders.router";
import { availabilityRouter } from "../modules/availability/availability.router";
import { clientsRouter } from "../modules/clients/clients.router";
import { clientsUpsertRouter } from "../modules/clients/clients-upsert.router";
import { eventsRouter } from "../modules/events/events.router";
import { feedsRouter } from "../modules/feeds/feeds.router";
import { idempotencyRouter } from "../modules/idempotency/idempotency.router";
import { lotsRouter } from "../modules/lots/lots.router";
import { locationsStockRouter } from "../modules/locations/locations-stock.router";
import { cursorsRouter } from "../modules/lists/cursors.router";
import { movementsRouter } from "../modules/movements/movements.router";
import { putawayRouter } from "../modules/putaway/putaway.router";
import { noticesRouter } from "../modules/notices/notices.router";
import { salesRouter } from "../modules/sales/sales.router";
import { webhooksRouter } from "../modules/webhooks/webhooks.router";
import { webhooksRestRouter } from "../modules/webhooks/webhooks-rest.router";
import { usersRouter } from "../modules/users/users.router";
import { labelsRouter } from "../modules/labels/labels.router";
import { printersRouter } from "../modules/printers/printers.router";
import { reservationsRouter } from "../modules/reservations/reservations.router";
import { router } from "./init";

export const appRouter = router({
  movements: movementsRouter,
  lots: lotsRouter,
  clients: clientsRouter,
  arrivals: arrivalsRouter,
  alignment: alignmentRouter,
  // The handheld's putaway (docs/api.md section 11), tRPC only.
  putaway: putawayRouter,
  availability: availabilityRouter,
  // Stock by location, where an article lies, what waits for putaway (docs/api.md section 11).
  locationsStock: locationsStockRouter,
  sales: salesRouter,
  // Master data and purchase orders, by id or as a change feed (docs/api.md section 9).
  feeds: feedsRouter,
  // Master data in by code, and clients (docs/api.md section 9).
  masterData: masterDataRouter,
  clientsUpsert: clientsUpsertRouter,
  // Events, pulled (docs/api.md section 10); pushed by the webhooks' workers.
  events: eventsRouter,
  // Where each list and feed starts "from now" (docs/api.md section 9).
  cursors: cursorsRouter,
  // Shipping notices, pallets, receiving differences (docs/api.md section 12).
  notices: noticesRouter,
  // A key's own webhook endpoints (docs/api.md section 10, scopes webhook and lettura).
  webhooksRest: webhooksRestRouter,
  // Labels and printers (docs/api.md section 13).
  labels: labelsRouter,
  printers: printersRouter,
  // Reservations and available-to-promise (docs/api.md section 14).
  reservations: reservationsRouter,
  // Operator UI only (no openapi meta: not part of /api/v1).
  session: sessionsRouter,
  catalogue: catalogueRouter,
  orders: ordersRouter,
  users: usersRouter,
  apiKeys: apiKeysRouter,
  audit: auditRouter,
  webhooks: webhooksRouter,
  // Settling an Idempotency-Key whose outcome is unknown, without running its request.
  idempotency: idempotencyRouter,
});

export type AppRouter = typeof appRouter;
