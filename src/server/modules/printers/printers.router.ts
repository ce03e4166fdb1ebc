import { syncParse } from "../../lib/zod";
import { adminProcedure, readProcedure, router, writeProcedure } from "../../trpc/init";
import { idempotentWrite } from "../../trpc/write";
import { wakePrintWorkers } from "./print-worker";
import {
  addPrinterInput,
  addPrinterOutput,
  formatAddress,
  getJobInput,
  listPrintersInput,
  listPrintersOutput,
  printInput,
  printJob,
  recentJobsInput,
  recentJobsOutput,
  reprintInput,
  setPrinterActiveInput,
  updatePrinterInput,
} from "./printers.schemas";
import {
  addPrinter,
  getPrintJob,
  listPrinters,
  preparePrint,
  queuePrint,
  recentPrintJobs,
  reprint,
  setPrinterActive,
  updatePrinter,
} from "./printers.service";

const TAGS = ["Stampanti"];

/** Label printers: listed by REST and on the screens, added, changed and deactivated by an administrator, jobs queued by REST and the screens. */
export const printersRouter = router({
  list: readProcedure
    .meta({ openapi: { method: "GET", path: "/stampanti", tags: TAGS, summary: "Stampanti di etichette registrate", protect: true } })
    .input(syncParse(listPrintersInput))
    .output(syncParse(listPrintersOutput))
    .query(({ ctx }) => listPrinters(ctx.db)),
  print: writeProcedure
    .meta({
      idempotent: true,
      successStatuses: [202],
      openapi: {
        method: "POST",
        path: "/stampanti/{id}/stampa",
        tags: TAGS,
        summary: "Stampa un'etichetta (lavoro in coda)",
        protect: true,
      },
    })
    .input(syncParse(printInput))
    .output(syncParse(printJob))
    .mutation(async ({ ctx, input }) => {
      const copies = input.copie ?? 1;
      const prepared = await preparePrint(ctx.db, input.id, input.etichetta, copies);
      const job = await idempotentWrite(ctx, { input }, async (tx) => ({
        status: 202,
        body: await queuePrint(tx, ctx.actor, prepared, input.etichetta, copies),
      }));
      // After the commit: the worker sends it; the answer does not wait for the printer.
      wakePrintWorkers();
      return job;
    }),
  job: readProcedure
    .meta({ openapi: { method: "GET", path: "/stampe/{id}", tags: TAGS, summary: "Stato di un lavoro di stampa", protect: true } })
    .input(syncParse(getJobInput))
    .output(syncParse(printJob))
    .query(({ ctx, input }) => getPrintJob(ctx.db, input.id)),

  // The screens (tRPC only).
  recent: readProcedure
    .input(syncParse(recentJobsInput))
    .output(syncParse(recentJobsOutput))
    .query(({ ctx, input }) => recentPrintJobs(ctx.db, input.limite ?? 20)),
  reprint: writeProcedure
    .input(syncParse(reprintInput))
    .output(syncParse(printJob))
    .mutation(async ({ ctx, input }) => {
      const job = await reprint(ctx.db, ctx.actor, input.id);
      wakePrintWorkers();
      return job;
    }),
  add: adminProcedure
    .input(addPrinterInput)
    .output(syncParse(addPrinterOutput))
    .mutation(({ ctx, input }) => addPrinter(ctx.db, ctx.actor, { ...input, indirizzo: formatAddress(input.indirizzo) })),
  update: adminProcedure
    .input(updatePrinterInput)
    .output(syncParse(addPrinterOutput))
    .mutation(({ ctx, input }) =>
      updatePrinter(ctx.db, ctx.actor, { ...input, indirizzo: input.indirizzo && formatAddress(input.indirizzo) }),
    ),
  setActive: adminProcedure
    .input(syncParse(setPrinterActiveInput))
    .output(syncParse(addPrinterOutput))
    .mutation(({ ctx, input }) => setPrinterActive(ctx.db, ctx.actor, input.id, input.attiva)),
});
