import { syncParse } from "../../lib/zod";
import { adminProcedure, router } from "../../trpc/init";
import { listAuditInput, listAuditOutput } from "./audit.schemas";
import { listAdminActions } from "./audit.service";

/** The administrative log, for administrators (screens only). */
export const auditRouter = router({
  list: adminProcedure
    .input(syncParse(listAuditInput))
    .output(syncParse(listAuditOutput))
    .query(({ ctx, input }) => listAdminActions(ctx.db, input)),
});
