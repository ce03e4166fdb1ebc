"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/router";
import { describeWriteError, outcomeUnknown } from "../../errors";
import { qty } from "../../format";
import { useTRPC } from "../../trpc";
import { tellOtherTabs } from "../../other-tabs";
import { useWriteKey } from "../../write-key";
import type { Feedback } from "./types";

export type TodayArrival = inferRouterOutputs<AppRouter>["arrivals"]["today"]["arrivi"][number];

/** The article's unit after a quantity: "6 KG × …". */
export const unitOf = (a: Pick<TodayArrival, "unita">) => ` ${a.unita}`;

/** Which of today's arrivals the list shows. */
export type ArrivalsView = "ddt" | "miei" | "tutti";

/**
 * Today's arrivals as the service has them, from any device: those of the delivery note being received,
 * the signed-in user's, or everyone's; each with Annulla when the user may cancel it (the service says so:
 * an operatore its own of the day, a responsabile any). The list of a reloaded page, of another tab or of
 * the next shift is the same list.
 */
export function useTodayArrivals(ddt: string, say: (f: Feedback) => void, onClosed: () => void) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [view, setView] = useState<ArrivalsView>("ddt");
  const note = ddt.trim();
  const input = view === "ddt" ? { ddt: note } : view === "miei" ? { mine: true } : {};
  const list = useQuery({ ...trpc.arrivals.today.queryOptions(input), enabled: view !== "ddt" || note !== "" });
  // The delivery note's arrivals, whatever the view: the supplier it was used for today.
  const ofDdt = useQuery({ ...trpc.arrivals.today.queryOptions({ ddt: note }), enabled: note !== "" });
  const first = ofDdt.data?.arrivi.find((a) => !a.annullato);
  const ddtSupplier = first ? first.fornitore : null;

  const [toCancel, setToCancel] = useState<TodayArrival | null>(null);
  const cancelKey = useWriteKey();
  const cancelling = useMutation(trpc.arrivals.cancel.mutationOptions({ trpc: { context: cancelKey.context } }));
  /** Read again here, and in this browser's other tabs: called after every write of an arrival. */
  const refresh = () => {
    tellOtherTabs([trpc.arrivals.today.pathKey()]);
    return client.invalidateQueries({ queryKey: trpc.arrivals.today.queryKey() });
  };

  async function confirmCancel() {
    const a = toCancel;
    if (!a || cancelling.isPending) return;
    try {
      const request = { id: String(a.movimento) };
      cancelKey.for(request);
      const out = await cancelling.mutateAsync(request);
      cancelKey.settle();
      say({
        outcome: "ok",
        title: `Arrivo annullato: ${qty(a.quantita)}${unitOf(a)} × ${a.articolo.codice}`,
        message: `Residuo sulla riga ${a.etichetta}: ${qty(out.riga.residua)}`,
      });
    } catch (e) {
      cancelKey.settle(e);
      const err = describeWriteError(e);
      // Cancelled meanwhile from another tab, handheld or by a colleague: what the operator wanted holds.
      if (err.codice === "arrivo_gia_annullato")
        say({
          outcome: "info",
          title: `Arrivo già annullato: ${qty(a.quantita)}${unitOf(a)} × ${a.articolo.codice}`,
          message:
            "Era già stato annullato da un'altra scheda, da un altro palmare o da un collega: non serve altro. L'elenco ora lo mostra annullato.",
        });
      else say({ outcome: "ko", title: outcomeUnknown(err) ? "Esito incerto" : "Annullamento rifiutato", message: err.messaggio });
    } finally {
      setToCancel(null);
      void refresh();
      onClosed();
    }
  }

  return {
    view,
    setView,
    arrivals: list.data?.arrivi ?? null,
    /** The service's list could not be read (offline, no answer). */
    failed: list.isError,
    ddtSupplier,
    refresh,
    toCancel,
    setToCancel,
    cancelBusy: cancelling.isPending,
    confirmCancel,
  };
}
