"use client";
import { useHotkeys, useLocalStorage } from "@mantine/hooks";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { describeWriteError } from "../../errors";
import { useStableActions } from "../../stable-actions";
import { useTRPC } from "../../trpc";
import { useWriteKey } from "../../write-key";
import type { TodayArrival } from "./use-today-arrivals";

/** This device's label printing: which printer, and whether a lot arrival prints its label by itself. */
export interface LabelSettings {
  stampante: number | null;
  automatica: boolean;
}

/** What a lot label is drawn from: an arrival of today, or what a putaway just moved. */
export type LotLabel = Pick<TodayArrival, "movimento" | "articolo" | "lotto" | "scadenza" | "quantita">;

/**
 * A lot's label as PDF (docs/api.md section 13: any printer, through the browser's print dialog), for a device with
 * no network printer chosen: the screens' own address for labels, opened with the session's cookie
 * (src/server/http/label-download.ts; /api/v1 reads no cookies).
 */
export function lotLabelPdf(a: LotLabel): string {
  const q = new URLSearchParams({ articolo: String(a.articolo.id), lotto: a.lotto ?? "", quantita: a.quantita, formato: "pdf" });
  if (a.scadenza) q.set("scadenza", a.scadenza);
  return `/api/etichette/lotto?${q}`;
}

/** A pallet's label as PDF, in the pallet's size. */
export const palletLabelPdf = (sscc: string) => `/api/etichette/collo/${encodeURIComponent(sscc)}?formato=pdf&dimensione=100x150`;

/** Per device, not per user: the printer is the one on this dock, whoever holds the handheld. */
const STORAGE = "banchina.etichette";
const FINAL = new Set(["stampata", "fallita"]);

/**
 * The lot label at receipt (docs/api.md section 13): after an arrival of a lot article the screen offers its
 * label at once (the button, or F2), and a device set to print automatically sends it to its printer
 * without a key press. Arrivals are seen in the user's own list of today, which the screen refreshes
 * after every registration; printing is a job the service queues, so a printer that is off never holds
 * up the next scan. Today's arrivals reprint their label from the list. A pallet received whole offers the
 * pallet's label (`tipo: "collo"`, its SSCC) the same way, one key or by itself (`offerPallet`). Another
 * screen (putaway) offers its own labels (`offerLot`, `offerPallet`) with `arrivals: false`: the user's
 * arrivals of today are then not watched, so F2 never prints one of them there.
 */
export function useLabelPrint(opts: { arrivals?: boolean } = {}) {
  const watchArrivals = opts.arrivals ?? true;
  const trpc = useTRPC();
  const [settings, setSettings] = useLocalStorage<LabelSettings>({
    key: STORAGE,
    defaultValue: { stampante: null, automatica: false },
    getInitialValueInEffect: true,
  });
  const printers = useQuery(trpc.printers.list.queryOptions({}));
  const mine = useQuery({ ...trpc.arrivals.today.queryOptions({ mine: true }), enabled: watchArrivals });

  // The arrivals already there when the screen opened are not "just registered".
  const seen = useRef<number | null>(null);
  const [offer, setOffer] = useState<LotLabel | null>(null);
  const [pallet, setPallet] = useState<string | null>(null);
  const [jobId, setJobId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const key = useWriteKey();
  const printing = useMutation(trpc.printers.print.mutationOptions({ trpc: { context: key.context } }));
  const reprinting = useMutation(trpc.printers.reprint.mutationOptions());
  const job = useQuery({
    ...trpc.printers.job.queryOptions({ id: String(jobId ?? 0) }),
    enabled: jobId !== null,
    refetchInterval: (q) => (q.state.data && FINAL.has(q.state.data.stato) ? false : 400),
  });

  const printer = printers.data?.stampanti.find((p) => p.id === settings.stampante && p.attiva) ?? null;

  /** Queues one print job under this device's write key (a retried request never prints twice). */
  async function submit(request: Parameters<typeof printing.mutateAsync>[0], keyed: object) {
    setError(null);
    key.for(keyed);
    try {
      const out = await printing.mutateAsync(request);
      key.settle();
      setJobId(out.id);
    } catch (e) {
      key.settle(e);
      setError(describeWriteError(e).messaggio);
    }
  }

  async function print(a: LotLabel) {
    if (!printer || !a.lotto) return;
    const request = {
      id: String(printer.id),
      etichetta: { tipo: "lotto" as const, articolo: a.articolo.id, lotto: a.lotto, scadenza: a.scadenza, quantita: Number(a.quantita) },
    };
    await submit(request, { ...request, movimento: a.movimento });
  }

  async function printPallet(sscc: string) {
    if (!printer) return;
    const request = { id: String(printer.id), etichetta: { tipo: "collo" as const, sscc } };
    await submit(request, request);
  }

  /**
   * A pallet just received: its label offered (printed at once when the device prints by itself). Its
   * arrivals, `movimenti`, count as seen: a lot among them must not replace the pallet's offer when today's
   * list comes back.
   */
  function offerPallet(sscc: string, movimenti: number[]) {
    seen.current = Math.max(seen.current ?? 0, ...movimenti);
    setOffer(null);
    setPallet(sscc);
    setJobId(null);
    if (settings.automatica && printer) void printPallet(sscc);
  }

  /** A lot label not from an arrival (what a putaway moved): offered, printed at once when the device prints by itself. */
  function offerLot(l: LotLabel) {
    setPallet(null);
    setOffer(l);
    setJobId(null);
    if (settings.automatica && printer) void print(l);
  }

  async function reprintJob(id: number) {
    setError(null);
    try {
      setJobId((await reprinting.mutateAsync({ id })).id);
    } catch (e) {
      setError(describeWriteError(e).messaggio);
    }
  }

  // A new lot arrival of this user: offered, and printed when the device prints by itself.
  const newest = mine.data?.arrivi.find((a) => !a.annullato);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reacts to a new arrival only; print reads the settings of that moment
  useEffect(() => {
    if (!mine.data) return;
    const top = newest?.movimento ?? 0;
    if (seen.current === null) {
      seen.current = top;
      return;
    }
    if (!newest || top <= seen.current) return;
    seen.current = top;
    if (!newest.lotto) return;
    setPallet(null);
    setOffer(newest);
    setJobId(null);
    if (settings.automatica && printer) void print(newest);
  }, [mine.data, newest?.movimento]);

  const actions = useStableActions({ print, printPallet, offerPallet, offerLot, reprintJob });
  // F2: the label on offer, the lot's or the pallet's (only one is offered at a time); with no printer, its PDF.
  const f2 = useStableActions({
    press: () => {
      if (!printer) {
        const pdf = pallet ? palletLabelPdf(pallet) : offer?.lotto ? lotLabelPdf(offer) : null;
        if (pdf) window.open(pdf, "_blank", "noopener");
      } else if (pallet) void printPallet(pallet);
      else if (offer) void print(offer);
    },
  });
  useHotkeys([["F2", () => f2.press()]], []);

  return {
    settings,
    setSettings,
    printers: printers.data?.stampanti.filter((p) => p.attiva) ?? [],
    printer,
    offer,
    pallet,
    ...actions,
    busy: printing.isPending || reprinting.isPending,
    job: job.data ?? null,
    error,
  };
}

export type LabelPrint = ReturnType<typeof useLabelPrint>;
