"use client";
import { useForm } from "@mantine/form";
import { useMutation } from "@tanstack/react-query";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { describeError, describeWriteError, outcomeUnknown } from "../../errors";
import { signal, type Outcome } from "../../feedback";
import { parseDecimal, qty } from "../../format";
import { useMutationCall, useRemembered, useWarehouses } from "../../hooks";
import { looksLikeScanCode } from "../../scan-code";
import { useTRPC } from "../../trpc";
import { useWriteKey } from "../../write-key";

export type Order = SearchOutput["ordini"][number];
export type Row = Order["righe"][number];

export interface Current {
  order: Order;
  row: Row;
  lettura: SearchOutput["lettura"];
  /** The code read that showed this row. */
  code: string;
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

/** The field that keeps a row from being registered as it is. */
export type PendingField = "ddt" | "magazzino" | "quantita" | "lotto";

/** Why the row shown cannot be registered as it is: said to the operator, and the field to complete. */
export interface Problem {
  field: PendingField;
  title: string;
  message: string;
}

/** A scan over a row that could not be registered: the choice the screen stops on, and what it read. */
export interface PendingChoice {
  row: Current;
  problem: Problem;
  codes: string[];
}

/** The outcome of a registration, for the scan that asked for it (the screen's own state is a render behind). */
interface Registered {
  done: boolean;
  feedback: Feedback;
}

export function isEditable(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (el as HTMLElement).isContentEditable;
}

/** A code read by the scanner is compared as the service reads it: case and surrounding blanks aside. */
const sameCode = (a: string, b: string) => a.trim().toUpperCase() === b.trim().toUpperCase();

/** One empty list for every render: the remembered value's default is a dependency of its storage hook. */
const NO_ARRIVALS: SessionArrival[] = [];

/**
 * The hook's actions with one identity for the screen's life, each running the function of the latest
 * render: the screen's parts are memoised, and a new function at every render would render them all again.
 */
function useStableActions<T extends Record<string, (...args: never[]) => unknown>>(actions: T): T {
  const latest = useRef(actions);
  useLayoutEffect(() => {
    latest.current = actions;
  });
  const [stable] = useState(
    () => Object.fromEntries(Object.keys(actions).map((name) => [name, (...args: never[]) => latest.current[name]!(...args)])) as T,
  );
  return stable;
}

/**
 * The receiving bay's state and calls: the delivery note and warehouse kept for the tab, the row found by
 * the last scan with its editable fields, the outcome shown (and heard), the arrivals of this session and
 * the one being cancelled. The scan field keeps the focus, except for the lot of a row that needs one.
 *
 * Scans are read one at a time, in the order they came (a queue): the code is echoed and the screen shows
 * it is looking it up at once; the same code read again while it is looked up is ignored. A row shown and
 * not registered is never dropped by the next scan: when it can be registered as it is (delivery note,
 * warehouse, a valid quantity, its lot) the next scan registers it first, then shows the new row; when it
 * cannot (or the service refuses it), the screen stops on a choice — complete it (Enter) or discard it —
 * and the codes read meanwhile wait until the row is registered or discarded.
 *
 * A scan and its confirmation should cost the page little: the searches and registrations are called
 * without watching them (useMutationCall: their pending and settled states would render the screen twice
 * a call), the scan field is uncontrolled (ScanField), and the actions returned keep their identity, so
 * the screen's memoised parts render only when what they show changed.
 */
export function useReceiving() {
  const trpc = useTRPC();
  const { shortOptions: warehouseOptions, magazzini, nameOf: warehouseName } = useWarehouses();
  const [ddt, setDdt] = useRemembered("ddt", "");
  const [magazzino, setMagazzino] = useRemembered<string | null>("magazzino", null);
  const [arrivals, setArrivals] = useRemembered<SessionArrival[]>("arrivi", NO_ARRIVALS);
  const [current, setCurrentState] = useState<Current | null>(null);
  const fields = useForm<ArrivalFields>({ initialValues: { quantita: "", lotto: "", scadenza: "" } });
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [reading, setReadingState] = useState<{ code: string; repeats: number } | null>(null);
  const [lastCode, setLastCode] = useState<string | null>(null);
  const [held, setHeldState] = useState<string[]>([]);
  const [choice, setChoiceState] = useState<PendingChoice | null>(null);
  const [toCancel, setToCancel] = useState<SessionArrival | null>(null);
  const scanRef = useRef<HTMLInputElement>(null);
  const ddtRef = useRef<HTMLInputElement>(null);
  const warehouseRef = useRef<HTMLInputElement>(null);
  const quantityRef = useRef<HTMLInputElement>(null);
  const lotRef = useRef<HTMLInputElement>(null);
  const expiryRef = useRef<HTMLInputElement>(null);
  const writeKey = useWriteKey();
  const cancelKey = useWriteKey();
  const search = useMutationCall(trpc.arrivals.search.mutationOptions());
  const registerCall = useMutationCall(trpc.arrivals.register.mutationOptions({ trpc: { context: writeKey.context } }));
  const cancelling = useMutation(trpc.arrivals.cancel.mutationOptions({ trpc: { context: cancelKey.context } }));

  // The scan queue and the state its steps read after an await: refs, never a render's stale values.
  const live = useRef({ ddt, magazzino });
  live.current = { ddt, magazzino };
  const currentRef = useRef<Current | null>(null);
  const heldRef = useRef<string[]>([]);
  const choiceRef = useRef<PendingChoice | null>(null);
  const readingRef = useRef<string | null>(null);
  // A code read, with its answer when it was already looked up (a product code read into the lot field).
  // `before`: what happened to the row that waited for it (registered, discarded), said with the new row.
  const queue = useRef<{ code: string; res?: SearchOutput; before?: Feedback }[]>([]);
  const pumping = useRef(false);
  const registration = useRef<Promise<Registered> | null>(null);

  const setCurrent = (c: Current | null) => {
    currentRef.current = c;
    setCurrentState(c);
  };
  const setHeld = (codes: string[]) => {
    heldRef.current = codes;
    setHeldState(codes);
  };
  const setChoice = (c: PendingChoice | null) => {
    choiceRef.current = c;
    setChoiceState(c);
  };

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

  // The field to put the caret in, applied after the render that shows it (a row's lot field appears with the row).
  const [focusRequest, setFocusRequest] = useState<{ field: PendingField | "scadenza" | "scan"; n: number } | null>(null);
  useEffect(() => {
    if (!focusRequest) return;
    const { field } = focusRequest;
    const el = { ddt: ddtRef, magazzino: warehouseRef, quantita: quantityRef, lotto: lotRef, scadenza: expiryRef, scan: scanRef }[field]
      .current;
    el?.focus();
    // The lot of a row just shown sits low on a handheld: the row comes up with it.
    if (field === "lotto") el?.scrollIntoView({ block: "center" });
    // A quantity or a lot already written is selected: what is typed or read next replaces it.
    if (field === "quantita" || field === "lotto") el?.select();
  }, [focusRequest]);

  /** Puts the caret in a field once the screen shows it. */
  function focusField(field: PendingField | "scadenza" | "scan") {
    setFocusRequest((r) => ({ field, n: (r?.n ?? 0) + 1 }));
  }

  /** Whether the row shown can be registered as it is, and if not, why. */
  function problemOf(cur: Current): Problem | null {
    const { quantita, lotto } = fields.getValues();
    if (!live.current.ddt.trim())
      return { field: "ddt", title: "Indicare il DDT", message: "Il numero del documento di trasporto del fornitore è obbligatorio." };
    if (!live.current.magazzino)
      return { field: "magazzino", title: "Scegliere il magazzino", message: "Il magazzino che riceve la merce." };
    const q = parseDecimal(quantita);
    if (q === null || q <= 0)
      return { field: "quantita", title: "Quantità non valida", message: `"${quantita}" non è una quantità: usare per esempio 12 o 2,5.` };
    if (cur.row.chiede_lotto && !lotto.trim())
      return { field: "lotto", title: "Lotto obbligatorio", message: `${cur.row.articolo.codice} è gestito a lotti: indicare il lotto.` };
    return null;
  }

  /** A new row shown is a new arrival (its own key); the lot of a row that needs one gets the caret. */
  function show(res: SearchOutput, order: Order, row: Row, code: string, before?: Feedback) {
    writeKey.reset();
    setCurrent({ order, row, lettura: res.lettura, code });
    fields.setValues({ quantita: qty(row.residua), lotto: res.lettura?.lotto ?? "", scadenza: res.lettura?.scadenza ?? "" });
    if (live.current.magazzino === null) setMagazzino(String(order.magazzino));
    const label = sameCode(code, row.etichetta);
    const others = res.totale_righe - 1;
    const note = label
      ? others > 0
        ? `Riga dell'etichetta ${row.etichetta}; altre ${others} ${others === 1 ? "riga attende" : "righe attendono"} questo articolo.`
        : undefined
      : others > 0
        ? `${res.totale_righe} righe attese per questo articolo: proposta quella dell'ordine più vecchio.`
        : undefined;
    const needsLot = row.chiede_lotto && !res.lettura?.lotto;
    const next = needsLot ? "Leggere o scrivere il lotto, poi Invio" : "Controllare la quantità, poi Invio";
    if (before) {
      // The row registered by this scan is heard (its beep) and read first; the new row follows.
      setFeedback({
        outcome: before.outcome,
        title: before.title,
        message: `Ora ${row.articolo.codice}: ${next[0]!.toLowerCase()}${next.slice(1)}.`,
      });
    } else say("info", next, note);
    focusField(needsLot ? "lotto" : "scan");
  }

  /** The codes read while a row waited: read now, in their order, after the row was registered or discarded. */
  function releaseHeld(before?: Feedback) {
    const codes = heldRef.current;
    if (codes.length === 0) return;
    setHeld([]);
    queue.current.unshift(...codes.map((code, i) => ({ code, ...(i === 0 && before ? { before } : {}) })));
    // Inside the queue's loop (a scan registered the row) the loop reads them next; otherwise it starts.
    void pump();
  }

  async function lookUp(code: string): Promise<SearchOutput | Error> {
    readingRef.current = code;
    setReadingState({ code, repeats: 0 });
    setLastCode(code);
    try {
      return await search({ barcode: code });
    } catch (e) {
      return e instanceof Error ? e : new Error(String(e));
    } finally {
      readingRef.current = null;
      setReadingState(null);
    }
  }

  /** One code read: looked up, then shown, after the row it replaces is registered (or the screen stops). */
  async function readCode(code: string, known?: SearchOutput, earlier?: Feedback) {
    const pending = currentRef.current;
    if (pending && heldRef.current.length > 0) {
      // The screen waits on this row already: the code joins the ones waiting, after them.
      setHeld([...heldRef.current, code]);
      return settlePending();
    }
    if (pending && sameCode(code, pending.code)) {
      say("info", "Codice già letto", `La riga di ${pending.row.articolo.codice} è quella mostrata: controllare la quantità, poi Invio.`);
      return;
    }
    const started = performance.now();
    const res = known ?? (await lookUp(code));
    const stillPending = currentRef.current ? ` La riga di ${currentRef.current.row.articolo.codice} resta da registrare.` : "";
    if (res instanceof Error) {
      say("ko", "Ricerca non riuscita", `${describeError(res).messaggio} Codice letto: ${code}.${stillPending}`);
      return;
    }
    const order = res.ordini[0];
    const row = order?.righe[0];
    if (!order || !row) {
      say("ko", res.motivo ?? "Codice non atteso", `Codice letto: ${code}.${stillPending}`);
      return;
    }
    document.body.dataset.ultimaScansioneMs = String(Math.round(performance.now() - started));
    // The row being registered by an Enter is done before this scan decides anything.
    if (registration.current) await registration.current;
    const cur = currentRef.current;
    if (cur && cur.row.riga === row.riga) {
      // The same row read again: a GS1 code brings its lot and expiry; anything else changes nothing.
      if (res.lettura?.lotto) {
        fields.setFieldValue("lotto", res.lettura.lotto);
        if (res.lettura.scadenza) fields.setFieldValue("scadenza", res.lettura.scadenza);
        say("info", `Lotto letto: ${res.lettura.lotto}`, "Controllare la quantità, poi Invio.");
        focusField("scan");
      } else say("info", "Riga già mostrata", `${row.articolo.codice}: controllare la quantità, poi Invio.`);
      return;
    }
    let before = earlier;
    if (cur) {
      const problem = problemOf(cur);
      if (problem) return stopOn(cur, problem, code);
      const out = await register();
      if (!out.done) return stopOn(cur, { field: "quantita", title: out.feedback.title, message: out.feedback.message ?? "" }, code);
      before = out.feedback;
    }
    show(res, order, row, code, before);
  }

  /** The row the screen waits on, when a scan comes: registered if it now can be (the codes waiting follow), else the choice again. */
  async function settlePending() {
    if (registration.current) await registration.current;
    const cur = currentRef.current;
    if (!cur) return releaseHeld();
    const problem = problemOf(cur);
    if (problem) return stopOn(cur, problem);
    const out = await register();
    if (!out.done) stopOn(cur, { field: "quantita", title: out.feedback.title, message: out.feedback.message ?? "" });
  }

  /** The screen stops: the row shown cannot be registered as it is; the code read (and the next ones) wait. */
  function stopOn(row: Current, problem: Problem, code?: string) {
    const codes = [...heldRef.current, ...(code ? [code] : []), ...queue.current.splice(0).map((q) => q.code)];
    setHeld(codes);
    setChoice({ row, problem, codes });
    say("ko", "Riga non ancora registrata", `${row.row.articolo.codice}: ${problem.message}`);
  }

  async function pump() {
    if (pumping.current) return;
    pumping.current = true;
    try {
      for (let next = queue.current.shift(); next !== undefined; next = queue.current.shift())
        await readCode(next.code, next.res, next.before);
    } finally {
      pumping.current = false;
    }
  }

  /** A code read (scanner, camera, typed): queued; the same code read again while it is looked up is ignored. */
  function enqueue(code: string) {
    const last = queue.current.at(-1)?.code ?? readingRef.current;
    if (last && sameCode(code, last)) {
      setReadingState((r) => (r ? { ...r, repeats: r.repeats + 1 } : r));
      return;
    }
    queue.current.push({ code });
    void pump();
  }

  /** Registers the row shown, once at a time: a second call while one runs waits for the same outcome. */
  function register(): Promise<Registered> {
    if (registration.current) return registration.current;
    const p = registerNow().finally(() => {
      registration.current = null;
    });
    registration.current = p;
    return p;
  }

  async function registerNow(): Promise<Registered> {
    const cur = currentRef.current;
    if (!cur) return { done: false, feedback: { outcome: "ko", title: "Nessuna riga da registrare" } };
    const problem = problemOf(cur);
    if (problem) {
      say("ko", problem.title, problem.message);
      focusField(problem.field);
      return { done: false, feedback: { outcome: "ko", title: problem.title, message: problem.message } };
    }
    const { quantita, lotto, scadenza } = fields.getValues();
    const q = parseDecimal(quantita)!;
    const { row, order } = cur;
    const note = live.current.ddt.trim();
    const request = {
      magazzino: Number(live.current.magazzino),
      ddt: note,
      riga: row.riga,
      quantita: q,
      ...(row.chiede_lotto && lotto.trim() ? { lotto: lotto.trim() } : {}),
      ...(row.chiede_lotto && scadenza ? { scadenza } : {}),
    };
    let outcome: Registered;
    try {
      // The key is kept after success until the next row is shown: an Enter that lands before the
      // screen has cleared the row replays this arrival instead of registering it again.
      writeKey.for(request);
      const out = await registerCall(request);
      if (!("movimento" in out)) throw new Error("Risposta inattesa dal servizio.");
      const arrival: SessionArrival = {
        movimento: out.movimento,
        riga: row.riga,
        etichetta: row.etichetta,
        codice: row.articolo.codice,
        descrizione: row.descrizione,
        quantita: String(q),
        lotto: row.chiede_lotto ? lotto.trim() : null,
        ddt: note,
        ordine: order.numero,
        ora: new Date().toLocaleTimeString("it-IT", { hour: "2-digit", minute: "2-digit" }),
        annullato: false,
      };
      // A replayed answer (pressed again after a lost answer) carries the same movement: listed once.
      setArrivals((list) => (list.some((a) => a.movimento === arrival.movimento) ? list : [arrival, ...list]));
      setCurrent(null);
      outcome = {
        done: true,
        feedback: {
          outcome: "ok",
          title: `Registrato: ${qty(q)} × ${row.articolo.codice}`,
          message: `Residuo sulla riga ${row.etichetta}: ${qty(out.residua)} · ordine ${order.numero} ${out.ordine.stato}`,
        },
      };
    } catch (e) {
      writeKey.settle(e);
      const err = describeWriteError(e);
      outcome = {
        done: false,
        feedback: { outcome: "ko", title: outcomeUnknown(err) ? "Esito incerto" : "Registrazione rifiutata", message: err.messaggio },
      };
    }
    say(outcome.feedback.outcome, outcome.feedback.title, outcome.feedback.message);
    focusField("scan");
    // The codes read while this row waited are read now, in their order.
    if (outcome.done) releaseHeld(outcome.feedback);
    return outcome;
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

  /** Enter in the scan field (its text, trimmed; ScanField has emptied it): a code is read; an empty field registers the row shown. */
  function onScanEnter(code: string) {
    if (code) enqueue(code);
    else if (currentRef.current) void register();
  }

  /**
   * Enter in the lot field: the expiry next when it is empty, else the row is registered. A product's own
   * code read there (the operator scanned the next article instead of the lot) is a scan, not a lot:
   * the service says whether a code that looks like one is one.
   */
  async function onLotEnter() {
    const cur = currentRef.current;
    const lot = fields.getValues().lotto.trim();
    if (cur && lot && sameCode(lot, cur.code)) {
      fields.setFieldValue("lotto", "");
      say("ko", "È il codice dell'articolo, non il lotto", `Leggere il codice del lotto di ${cur.row.articolo.codice}, o scriverlo.`);
      return focusField("lotto");
    }
    if (cur && looksLikeScanCode(lot)) {
      const res = await lookUp(lot);
      if (!(res instanceof Error) && res.motivo_codice !== "codice_sconosciuto") {
        fields.setFieldValue("lotto", "");
        queue.current.push({ code: lot, res });
        return void pump();
      }
    }
    if (!fields.getValues().scadenza) focusField("scadenza");
    else void register();
  }

  /** "Completa la riga" (Enter): the dialog closes on the field to complete; the codes read wait for the row. */
  function completePending() {
    const c = choiceRef.current;
    setChoice(null);
    if (!c) return;
    say("info", c.problem.title, `Poi ${c.codes.length === 1 ? "sarà letto il codice" : "saranno letti i codici"} ${c.codes.join(", ")}.`);
    focusField(c.problem.field);
  }

  /** "Scarta la riga": the row shown is not registered; the codes read meanwhile are read now. */
  function discardPending() {
    const c = choiceRef.current;
    setChoice(null);
    setCurrent(null);
    const discarded: Feedback = { outcome: "info", title: `Riga scartata: ${c?.row.row.articolo.codice ?? ""} non registrato` };
    say(discarded.outcome, discarded.title);
    focusScan();
    releaseHeld(discarded);
  }

  /** "Lascia questa riga": the row and its outcome go, the scanner is ready again (codes waiting are read). */
  function leaveRow() {
    setCurrent(null);
    setFeedback(null);
    focusScan();
    releaseHeld();
  }

  function closeCancel() {
    setToCancel(null);
    focusScan();
  }

  const actions = useStableActions({
    enqueue,
    registerRow: () => void register(),
    confirmCancel: () => void confirmCancel(),
    closeCancel,
    onScanEnter,
    onLotEnter,
    completePending,
    discardPending,
    leaveRow,
  });
  const [rowRefs] = useState(() => ({ quantity: quantityRef, lot: lotRef, expiry: expiryRef }));

  return {
    warehouseOptions,
    warehouseName,
    ddt,
    setDdt,
    magazzino,
    setMagazzino,
    arrivals,
    current,
    values: fields.values,
    setField: fields.setFieldValue,
    feedback,
    reading,
    lastCode,
    held,
    choice,
    searchBusy: reading !== null,
    cancelBusy: cancelling.isPending,
    toCancel,
    setToCancel,
    scanRef,
    ddtRef,
    warehouseRef,
    rowRefs,
    focusScan,
    ...actions,
  };
}
