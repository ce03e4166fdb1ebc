"use client";
import type { ScanOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { describeError } from "../../errors";
import { useMutationCall } from "../../hooks";
import { useTRPC } from "../../trpc";
import { type FlushReport, queuedPerRow } from "./arrival-queue";
import { lookUpLocally } from "./local-lookup";
import { useArrivalQueue } from "./use-arrival-queue";
import { useExpectedCopy } from "./use-expected-copy";

/** Failures after which the device's own copy answers a scan: the service could not be reached. */
const UNREACHABLE = new Set(["offline", "timeout", "rete"]);

/**
 * The receiving screen's link to the service, with what stands in for it in a dead spot: the queue of
 * arrivals kept on the device, the copy of the warehouse's expected rows, and the look-up of a code, by the
 * service (`arrivals.scan`, from the receiving warehouse), or in the copy when the service cannot be reached.
 */
export function useDockService(magazzino: string | null, onReport: (r: FlushReport) => void) {
  const trpc = useTRPC();
  const queue = useArrivalQueue(onReport);
  const copy = useExpectedCopy(magazzino, queue.db, queue.online);
  const scan = useMutationCall(trpc.arrivals.scan.mutationOptions());

  async function lookUp(code: string, warehouse: string | null): Promise<ScanOutput | Error> {
    const local = () => {
      const c = copy.copyRef.current;
      return c ? lookUpLocally(code, c, queuedPerRow(queue.itemsRef.current)) : null;
    };
    // The copy is the chosen warehouse's: with none chosen there is nothing to read, and the operator is asked for it.
    const none = () =>
      new Error(
        warehouse
          ? "Offline, e nessuna copia delle righe attese di questo magazzino sul palmare: collegarsi una volta alla rete con il magazzino scelto."
          : "Offline: scegliere prima il magazzino di ricevimento (campo «Magazzino»), poi rileggere il codice. Senza rete il palmare legge le righe attese del magazzino scelto.",
      );
    if (!queue.online) return local() ?? none();
    try {
      return await scan({ barcode: code, ...(warehouse ? { magazzino: Number(warehouse) } : {}) });
    } catch (e) {
      const fallback = UNREACHABLE.has(describeError(e).codice) ? local() : null;
      return fallback ?? (e instanceof Error ? e : new Error(String(e)));
    }
  }

  return { queue, copy, lookUp };
}
