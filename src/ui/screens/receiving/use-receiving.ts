"use client";
import { useForm } from "@mantine/form";
import { useMutation } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { describeError, describeWriteError, outcomeUnknown } from "../../errors";
import { signal, type Outcome } from "../../feedback";
import { parseDecimal, qty } from "../../format";
import { useRemembered, useWarehouses } from "../../hooks";
import { useTRPC } from "../../trpc";
import { useWriteKey } from "../../write-key";

export type Order = SearchOutput["ordini"][number];
export type Row = Order["righe"][number];

export interface Current {
  order: Order;
  row: Row;
  lettura: SearchOutput["lettura"];
}

export interface SessionArrival {
  movimento: number;
  riga: number;
  etichetta: string;
  codice: string;
  descrizione: string;
  quantita: string;
  lotto: string | null;
  ddt: string;
  ordine: string;
  ora: string;
  annullato: boolean;
}

export interface Feedback {
  outcome: Outcome;
  title: string;
  message?: string;
}

/** What the operator may change of the row shown before registering it. */
export interface ArrivalFields {
  quantita: string;
  lotto: string;
  scadenza: string;
}

export function isEditable(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (el as HTMLElement).isContentEditable;
}

/**
 * The receiving bay's state and calls: the delivery note and warehouse kept for the tab, the row found by
 * the last scan with its editable fields, the outcome shown (and heard), the arrivals of this session and
 * the one being cancelled. The scan field keeps the focus throughout.
 */
export function useReceiving() {
  const trpc = useTRPC();
  const { shortOptions: warehouseOptions, magazzini } = useWarehouses();
  const [ddt, setDdt] = useRemembered("ddt", "");
  const [magazzino, setMagazzino] = useRemembered<string | null>("magazzino", null);
  const [arrivals, setArrivals] = useRemembered<SessionArrival[]>("arrivi", []);
  const [scan, setScan] = useState("");
  const [current, setCurrent] = useState<Current | null>(null);
  const fields = useForm<ArrivalFields>({ initialValues: { quantita: "", lotto: "", scadenza: "" } });
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [toCancel, setToCancel] = useState<SessionArrival | null>(null);
  const scanRef = useRef<HTMLInputElement>(null);
  const ddtRef = useRef<HTMLInputElement>(null);
  const inFlight = useRef(false);
  const writeKey = useWriteKey();
  const cancelKey = useWriteKey();
  const searching = useMutation(trpc.arrivals.search.mutationOptions());
  const registering = useMutation(trpc.arrivals.register.mutationOptions({ trpc: { context: writeKey.context } }));
  const cancelling = useMutation(trpc.arrivals.cancel.mutationOptions({ trpc: { context: cancelKey.context } }));

  const focusScan = useCallback(() => {
    requestAnimationFrame(() => scanRef.current?.focus());
  }, []);

  // The scan field holds the focus: a keystroke that lands nowhere in particular goes to it, so a
  // keyboard-wedge scanner always types into the right place.
  useEffect(() => {
    focusScan();
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (isEditable(document.activeElement) || document.querySelector("[role=dialog]")) return;
      if (e.key.length === 1 || e.key === "Enter") scanRef.current?.focus();
    };
    document.addEventListener("keydown", onKey, true);
    return () => document.removeEventListener("keydown", onKey, true);
  }, [focusScan]);

  // The first start of a tab: the warehouse of the only warehouse there is.
  useEffect(() => {
    if (magazzino === null && magazzini.length === 1) setMagazzino(String(magazzini[0]!.id));
  }, [magazzini, magazzino, setMagazzino]);

  function say(outcome: Outcome, title: string, message?: string) {
    signal(outcome);
    setFeedback({ outcome, title, message });
  }

  async function search(code: string) {
    const started = performance.now();
    try {
      const res = await searching.mutateAsync({ barcode: code });
      const order = res.ordini[0];
      const row = order?.righe[0];
      if (!order || !row) {
        setCurrent(null);
        say("ko", res.motivo ?? "Codice non atteso", `Codice letto: ${code}`);
        return;
      }
      // A new row shown is a new arrival: it gets its own key.
      writeKey.reset();
      setCurrent({ order, row, lettura: res.lettura });
      fields.setValues({ quantita: qty(row.residua), lotto: res.lettura?.lotto ?? "", scadenza: res.lettura?.scadenza ?? "" });
      if (magazzino === null) setMagazzino(String(order.magazzino));
      const altre = res.totale_righe > 1 ? `${res.totale_righe} righe attese per questo articolo: proposta la più vecchia.` : undefined;
      say("info", "Controllare la quantità, poi Invio", altre);
      const ms = Math.round(performance.now() - started);
      document.body.dataset.ultimaScansioneMs = String(ms);
    } catch (e) {
      setCurrent(null);
      say("ko", "Ricerca non riuscita", describeError(e).messaggio);
    } finally {
      focusScan();
    }
  }

  async function register() {
    if (!current || inFlight.current) return;
    const { quantita, lotto, scadenza } = fields.getValues();
    if (!ddt.trim()) {
      say("ko", "Indicare il DDT", "Il numero del documento di trasporto del fornitore è obbligatorio.");
      ddtRef.current?.focus();
      return;
    }
    if (!magazzino) {
      say("ko", "Scegliere il magazzino");
      return;
    }
    const q = parseDecimal(quantita);
    if (q === null || q <= 0) {
      say("ko", "Quantità non valida", `"${quantita}" non è una quantità: usare per esempio 12 o 2,5.`);
      return;
    }
    if (current.row.chiede_lotto && !lotto.trim()) {
      say("ko", "Lotto obbligatorio", `${current.row.articolo.codice} è gestito a lotti: indicare il lotto.`);
      return;
    }
    inFlight.current = true;
    const { row, order } = current;
    const request = {
      magazzino: Number(magazzino),
      ddt: ddt.trim(),
      riga: row.riga,
      quantita: q,
      ...(row.chiede_lotto && lotto.trim() ? { lotto: lotto.trim() } : {}),
      ...(row.chiede_lotto && scadenza ? { scadenza } : {}),
    };
    try {
      // The key is kept after success until the next row is shown: an Enter that lands before the
      // screen has cleared the row replays this arrival instead of registering it again.
      writeKey.for(request);
      const out = await registering.mutateAsync(request);
      if (!("movimento" in out)) throw new Error("Risposta inattesa dal servizio.");
      const arrival: SessionArrival = {
        movimento: out.movimento,
        riga: row.riga,
        etichetta: row.etichetta,
        codice: row.articolo.codice,
        descrizione: row.descrizione,
        quantita: String(q),
        lotto: row.chiede_lotto ? lotto.trim() : null,
        ddt: ddt.trim(),
        ordine: order.numero,
        ora: new Date().toLocaleTimeString("it-IT", { hour: "2-digit", minute: "2-digit" }),
        annullato: false,
      };
      // A replayed answer (pressed again after a lost answer) carries the same movement: listed once.
      setArrivals((list) => (list.some((a) => a.movimento === arrival.movimento) ? list : [arrival, ...list]));
      setCurrent(null);
      say(
        "ok",
        `Registrato: ${qty(q)} × ${row.articolo.codice}`,
        `Residuo sulla riga ${row.etichetta}: ${qty(out.residua)} · ordine ${order.numero} ${out.ordine.stato}`,
      );
    } catch (e) {
      writeKey.settle(e);
      const err = describeWriteError(e);
      say("ko", outcomeUnknown(err) ? "Esito incerto" : "Registrazione rifiutata", err.messaggio);
    } finally {
      inFlight.current = false;
      focusScan();
    }
  }

  async function confirmCancel() {
    if (!toCancel || cancelling.isPending) return;
    try {
      const request = { id: String(toCancel.movimento) };
      cancelKey.for(request);
      const out = await cancelling.mutateAsync(request);
      cancelKey.settle();
      setArrivals((list) => list.map((a) => (a.movimento === toCancel.movimento ? { ...a, annullato: true } : a)));
      say(
        "ok",
        `Arrivo annullato: ${qty(toCancel.quantita)} × ${toCancel.codice}`,
        `Residuo sulla riga ${toCancel.etichetta}: ${qty(out.riga.residua)}`,
      );
    } catch (e) {
      cancelKey.settle(e);
      const err = describeWriteError(e);
      if (err.codice === "arrivo_gia_annullato")
        setArrivals((list) => list.map((a) => (a.movimento === toCancel.movimento ? { ...a, annullato: true } : a)));
      say("ko", outcomeUnknown(err) ? "Esito incerto" : "Annullamento rifiutato", err.messaggio);
    } finally {
      setToCancel(null);
      focusScan();
    }
  }

  /** Enter in the scan field: a code is searched; an empty field registers the row shown. */
  function onScanEnter() {
    const code = scan.trim();
    if (code) {
      setScan("");
      if (!registering.isPending) void search(code);
    } else if (current) {
      void register();
    }
  }

  /** "Lascia questa riga": the row and its outcome go, the scanner is ready again. */
  function leaveRow() {
    setCurrent(null);
    setFeedback(null);
    focusScan();
  }

  function closeCancel() {
    setToCancel(null);
    focusScan();
  }

  return {
    warehouseOptions,
    magazzini,
    ddt,
    setDdt,
    magazzino,
    setMagazzino,
    arrivals,
    scan,
    setScan,
    current,
    fields,
    feedback,
    searchBusy: searching.isPending,
    registerBusy: registering.isPending,
    cancelBusy: cancelling.isPending,
    toCancel,
    setToCancel,
    scanRef,
    ddtRef,
    focusScan,
    search,
    register,
    confirmCancel,
    closeCancel,
    onScanEnter,
    leaveRow,
  };
}
