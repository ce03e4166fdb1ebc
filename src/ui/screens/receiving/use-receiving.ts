"use client";
import { useForm } from "@mantine/form";
import { useEffect, useRef } from "react";
import type { ScanOutput as SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { readSscc } from "../../../lib/sscc";
import { describeError } from "../../errors";
import { signal, type Outcome } from "../../feedback";
import { qty } from "../../format";
import { useRemembered, useWarehouses } from "../../hooks";
import { setWaitingCount } from "../../offline/waiting";
import { type ScanTarget, useScanner } from "../../scanner/use-scanner";
import { useStableActions } from "../../stable-actions";
import { useMachine } from "../../use-machine";
import { useDockFocus } from "./use-dock-focus";
import { useKeptOptions, useKeptRow } from "./use-kept-row";
import { lotField } from "./lot-field";
import { choiceOf, dockStep, initialDock, rowOf } from "./receiving-state";
import { countedExcess, problemOf, shownFeedback } from "./row-rules";
import type { ArrivalFields, Current, Feedback, Order, Problem, Registered, Row } from "./types";
import { sameCode } from "./types";
import { type FlushReport, type QueuedArrival, reportFeedback } from "./arrival-queue";
import { useDockService } from "./use-dock-service";
import { useScanQueue } from "./use-scan-queue";
import { knowsCode } from "./local-lookup";
import { useRegistration } from "./use-registration";
import { useTodayArrivals } from "./use-today-arrivals";

export type { Current, Feedback, Order, PendingChoice, Row } from "./types";

/**
 * The receiving bay's state and calls: the delivery note and warehouse, the row found by the last scan with
 * its editable fields, the outcome shown (and heard), today's arrivals and the one being cancelled.
 *
 * One scan path (useScanner): a scanner's burst is read wherever the focus is — the delivery note, the
 * quantity, a dialog — and never typed there; in the lot field it is read as a lot (GS1 taken apart). Codes
 * are read one at a time, in the order they came (a queue), and wait, visibly, while a dialog is open.
 * The same row read again counts (counting by scan). A row shown and not registered is never dropped by the
 * next scan: when its quantity was settled (typed or counted) and it can be registered as it is, the next
 * scan registers it first; otherwise the screen stops on a choice, and the codes read meanwhile wait.
 * The row, its fields and the codes waiting are kept on the device for the signed-in user.
 */
export function useReceiving(opts: { intercept?: (code: string) => boolean } = {}) {
  const { options: warehouseOptions, magazzini, nameOf: warehouseName } = useWarehouses();
  const [ddt, setDdtState] = useRemembered("ddt", "");
  const [magazzino, setMagazzino] = useRemembered<string | null>("magazzino", null);
  // The screen's state (receiving-state.ts); `now()` is what the scan queue's steps read after an await.
  const { state, send, now } = useMachine(dockStep, initialDock);
  const current = rowOf(state);
  const { held, feedback } = state;
  const currentNow = () => rowOf(now());
  const fields = useForm<ArrivalFields>({ initialValues: { quantita: "", lotto: "", scadenza: "" } });
  const scans = useScanQueue((s) => readCode(s.code, s.res, s.before));
  const { waiting } = scans;
  const { scanRef, ddtRef, warehouseRef, rowRefs, focusScan, focusField } = useDockFocus();
  const today = useTodayArrivals(
    ddt,
    (f) => say(f.outcome, f.title, f.message),
    () => resume(),
  );
  const dock = useDockService(magazzino, (r) => onQueueReport(r));
  const { queue, copy } = dock;
  const warehouses = useKeptOptions(queue.db, warehouseOptions);

  // The remembered fields the scan queue's steps read after an await: never a render's stale values.
  const live = useRef({ ddt, magazzino, ddtSupplier: today.ddtSupplier });
  live.current = { ddt, magazzino, ddtSupplier: today.ddtSupplier };

  // The supplier each delivery note was registered for on this screen, before the service's list says so.
  const ddtSuppliers = useRef(new Map<string, { id: number; nome: string }>());
  // The note as the field shows it: typed a moment ago, it may not have reached this hook's state yet.
  const ddtNow = () => ddtRef.current?.value ?? live.current.ddt;
  const rowContext = () => ({
    ...live.current,
    ddt: ddtNow(),
    ddtSupplier: live.current.ddtSupplier ?? ddtSuppliers.current.get(ddtNow().trim().toUpperCase()) ?? null,
    warehouseName,
  });
  const registration = useRegistration({
    queue,
    current: currentNow,
    values: () => fields.getValues(),
    context: rowContext,
    onRegistered: (cur) => {
      ddtSuppliers.current.set(ddtNow().trim().toUpperCase(), cur.order.fornitore);
      send({ type: "rowGone" });
      void today.refresh();
      void copy.refresh();
    },
    say: (f) => say(f.outcome, f.title, f.message),
    focus: (field) => focusField(field),
    releaseHeld: (before) => releaseHeld(before),
  });

  // The offline banner counts the codes read and not yet looked up while the service cannot be reached.
  useEffect(() => {
    setWaitingCount("ricevimento-codici", queue.online ? 0 : waiting.length + held.length);
    return () => setWaitingCount("ricevimento-codici", 0);
  }, [waiting, held, queue.online]);

  // What a reload, a closed tab or another screen must find: the row shown with its fields, and every code
  // read and not yet read, in the user's IndexedDB.
  useKeptRow(queue.db, { current, values: fields.values, codes: [...held, ...waiting] }, (k) => {
    if (k.current) {
      send({ type: "rowChanged", row: k.current });
      fields.setValues(k.values);
      say("info", "Riga ripresa", `${k.current.row.articolo.codice}: la riga lasciata in sospeso. Controllare la quantità, poi Invio.`);
    }
    if (k.codes.length > 0) {
      scans.add(k.codes.map((code) => ({ code })));
    }
  });

  // A pallet's SSCC goes to its own view (usePallet) before the row-by-row queue, except while a row is shown:
  // then it waits for the row like any code (registered first, or the choice), so one card shows at a time.
  const takenByPallet = (code: string) => !(currentNow() && readSscc(code) !== null) && (opts.intercept?.(code) ?? false);
  useScanner(
    (code, target) => takenByPallet(code) || onScan(code, target),
    (code) => knowsCode(code, dock.copy.copyRef.current),
  );

  // The first start: the warehouse of the only warehouse there is.
  useEffect(() => {
    if (magazzino === null && magazzini.length === 1) setMagazzino(String(magazzini[0]!.id));
  }, [magazzini, magazzino, setMagazzino]);

  function say(outcome: Outcome, title: string, message?: string) {
    signal(outcome);
    send({ type: "said", feedback: { outcome, title, message } });
  }

  /** A new row shown (its quantity the remainder, proposed, not settled); the lot of a row that needs one gets the caret. */
  function show(res: SearchOutput, order: Order, row: Row, code: string, before?: Feedback) {
    send({ type: "shown", row: { order, row, lettura: res.lettura, code, confirmed: false, counted: 1 } });
    fields.setValues({ quantita: qty(row.residua), lotto: res.lettura?.lotto ?? "", scadenza: res.lettura?.scadenza ?? "" });
    if (live.current.magazzino === null) setMagazzino(String(order.magazzino));
    const unsure = queue.itemsRef.current.find((q) => q.richiesta.riga === row.riga && q.stato === "incerto");
    const f = shownFeedback(res, row, code, before, unsure ? qty(unsure.richiesta.quantita) : null);
    if (f.heard) say(f.outcome, f.title, f.message);
    else send({ type: "said", feedback: f });
    focusField(row.chiede_lotto && !res.lettura?.lotto ? "lotto" : "scan");
  }

  /** The codes read while a row waited: read now, in their order, after the row was registered or discarded. */
  function releaseHeld(before?: Feedback) {
    const codes = now().held;
    if (codes.length === 0) return;
    send({ type: "released" });
    scans.addFirst(codes.map((code, i) => ({ code, ...(i === 0 && before ? { before } : {}) })));
  }

  /** A code looked up (by the service, or offline in the device's copy), its reading shown meanwhile. */
  async function lookUp(code: string): Promise<SearchOutput | Error> {
    send({ type: "lookingUp", code });
    try {
      return await dock.lookUp(code, live.current.magazzino);
    } finally {
      send({ type: "lookedUp" });
    }
  }

  /** What a pass over the queue did: the lists follow; said when the operator should know. */
  function onQueueReport(r: FlushReport) {
    if (r.sent.length + r.verified.length + r.resent.length > 0) {
      void today.refresh();
      void dock.copy.refresh();
    }
    const f = reportFeedback(r, currentNow() !== null);
    if (f) say(f.outcome, f.title, f.message);
  }

  /** The row shown read again: one more counted (a scan of each piece), the quantity now settled. */
  function countAgain(cur: Current) {
    const counted = cur.counted + 1;
    send({ type: "rowChanged", row: { ...cur, counted, confirmed: true } });
    fields.setFieldValue("quantita", String(counted));
    const excess = countedExcess({ ...cur, counted }, String(counted));
    if (excess)
      return say(
        "ko",
        `Contati ${counted} × ${cur.row.articolo.codice}: oltre il residuo di ${qty(cur.row.residua)}`,
        `Invio registra ${qty(excess.riceve)} e annota ${qty(excess.eccedente)} come eccedente (non ricevuto, differenza per il fornitore); oppure scrivere la quantità.`,
      );
    say("info", `Contati ${counted} × ${cur.row.articolo.codice}`, "Leggere ancora per contare, Invio per registrare.");
  }

  /** One code read: looked up, then shown, after the row it replaces is registered (or the screen stops). */
  async function readCode(code: string, known?: SearchOutput, earlier?: Feedback) {
    const pending = currentNow();
    if (pending && now().held.length > 0) {
      send({ type: "held", codes: [...now().held, code] });
      return settlePending();
    }
    if (opts.intercept && readSscc(code) !== null) return readPallet(code);
    if (pending && sameCode(code, pending.code)) return countAgain(pending);
    const res = known ?? (await lookUp(code));
    const shownNow = currentNow();
    const stillPending = shownNow ? ` La riga di ${shownNow.row.articolo.codice} resta da registrare.` : "";
    if (res instanceof Error) {
      say("ko", "Ricerca non riuscita", `${describeError(res).messaggio} Codice letto: ${code}.${stillPending}`);
      return;
    }
    const order = res.ordini[0];
    const row = order?.righe[0];
    if (!order || !row) {
      say("ko", res.motivo ?? "Codice non atteso", `Codice letto: ${code}.${stillPending}`);
      if (res.motivo_codice === "altro_magazzino") focusField("magazzino");
      return;
    }
    await registration.idle();
    const cur = currentNow();
    if (cur && cur.row.riga === row.riga) {
      // The same row by another code: a GS1 code brings its lot; else it counts.
      const lotCode = res.lettura?.lotto;
      if (lotCode && !fields.getValues().lotto.trim())
        return lot.fill({ kind: "lotto", lotto: lotCode, scadenza: res.lettura?.scadenza ?? null, gtin: null });
      if (!lotCode || sameCode(lotCode, fields.getValues().lotto)) return countAgain(cur);
    }
    let before = earlier;
    if (cur) {
      const problem = problemOf(cur, fields.getValues(), rowContext(), true);
      if (problem) return stopOn(cur, problem, code);
      const out = await registration.register();
      if (!out.done) return stopOn(cur, { field: "quantita", title: out.feedback.title, message: out.feedback.message ?? "" }, code);
      before = out.feedback;
    }
    show(res, order, row, code, before);
  }

  /** A pallet read while a row was shown: the row first (registered, or the choice with the SSCC waiting), then the pallet. */
  async function readPallet(code: string) {
    await registration.idle();
    const cur = currentNow();
    if (cur) {
      const problem = problemOf(cur, fields.getValues(), rowContext(), true);
      if (problem) return stopOn(cur, problem, code);
      const out = await registration.register();
      if (!out.done) return stopOn(cur, { field: "quantita", title: out.feedback.title, message: out.feedback.message ?? "" }, code);
    }
    opts.intercept?.(code);
  }

  /** The row the screen waits on, when a scan comes: registered if it now can be (the codes waiting follow), else the choice again. */
  async function settlePending() {
    await registration.idle();
    const cur = currentNow();
    if (!cur) return releaseHeld();
    const problem = problemOf(cur, fields.getValues(), rowContext(), true);
    if (problem) return stopOn(cur, problem);
    const out: Registered = await registration.register();
    if (!out.done) stopOn(cur, { field: "quantita", title: out.feedback.title, message: out.feedback.message ?? "" });
  }

  /** The screen stops: the row shown cannot be registered as it is; the code read (and the next ones) wait. */
  function stopOn(row: Current, problem: Problem, code?: string) {
    const codes = [...now().held, ...(code ? [code] : []), ...scans.takeAll()];
    send({ type: "stopped", row, problem, codes });
    say("ko", "Riga non ancora registrata", `${row.row.articolo.codice}: ${problem.message}`);
  }

  function enqueue(code: string) {
    scans.add([{ code }]);
  }

  /** Every code read (the scanner anywhere, the camera, typed in the scan field): to its place. */
  const lot = lotField({
    current: currentNow,
    fields,
    say: (f) => say(f.outcome, f.title, f.message),
    focus: focusField,
    lookUp,
    asScan: (code, res) => scans.add([{ code, res }]),
    register: () => void registration.register(),
  });

  function onScan(code: string, target: ScanTarget) {
    if (now().screen.name === "choice") {
      // The choice is open: the code joins the ones waiting for the row, and the choice says so.
      send({ type: "joined", code });
      signal("info");
      return;
    }
    if (target === "lotto" && currentNow()?.row.chiede_lotto && readSscc(code) === null) return void lot.read(code);
    enqueue(code);
  }

  /** Enter in the scan field (a person's typing; a scanner's burst never gets here): a code, or the row shown is registered. */
  function onScanEnter(code: string) {
    if (code && takenByPallet(code)) return;
    if (code) enqueue(code);
    else if (currentNow()) void registration.register();
  }

  /** "Completa la riga" (Enter): the dialog closes on the field to complete; the codes read wait for the row. */
  function completePending() {
    const c = choiceOf(now());
    if (!c) return;
    send({ type: "completed" });
    say(
      "info",
      c.problem.title,
      `${c.problem.message} Poi ${c.codes.length === 1 ? "sarà letto il codice" : "saranno letti i codici"} ${c.codes.join(", ")}.`,
    );
    focusField(c.problem.field);
  }

  /** "Scarta la riga": the row shown is not registered; the codes read meanwhile are read now. */
  function discardPending() {
    const c = choiceOf(now());
    send({ type: "discarded" });
    const discarded: Feedback = { outcome: "info", title: `Riga scartata: ${c?.row.row.articolo.codice ?? ""} non registrato` };
    say(discarded.outcome, discarded.title);
    focusScan();
    releaseHeld(discarded);
  }

  /** "Lascia questa riga": the row and its outcome go, the scanner is ready again (codes waiting are read). */
  function leaveRow() {
    send({ type: "rowGone" });
    send({ type: "said", feedback: null });
    focusScan();
    releaseHeld();
  }

  /** A dialog of the screen opens (a cancellation to confirm): codes read meanwhile wait for it. */
  function askCancel(a: Parameters<typeof today.setToCancel>[0]) {
    if (a !== null) scans.pause();
    today.setToCancel(a);
    if (a === null) resume();
  }
  function resume() {
    focusScan();
    scans.resume();
  }

  function setDdt(value: string) {
    setDdtState(value);
    // The refusal that asked for it goes once it is written.
    send({ type: "ddtWritten", ddt: value });
  }

  function setField<K extends keyof ArrivalFields>(name: K, value: ArrivalFields[K]) {
    fields.setFieldValue(name as keyof ArrivalFields, value);
    // A quantity typed is a quantity settled: the next scan may register it.
    const cur = currentNow();
    if (name === "quantita" && cur && !cur.confirmed) send({ type: "rowChanged", row: { ...cur, confirmed: true } });
  }

  const actions = useStableActions({
    enqueue,
    /** A code from elsewhere than the scanner (the camera, a code typed before the screen ran). */
    accept: (code: string) => void (takenByPallet(code) || enqueue(code)),
    registerRow: () => void registration.register(),
    confirmCancel: () => void today.confirmCancel(),
    closeCancel: () => askCancel(null),
    askCancel,
    onScanEnter,
    onLotEnter: () => void lot.onEnter(),
    completePending,
    discardPending,
    leaveRow,
    setDdt,
    setField,
    discardQueued: (q: QueuedArrival) => {
      void queue.remove(q);
      say("info", `Scartato: ${qty(q.richiesta.quantita)} × ${q.codice}`, "Non sarà inviato.");
    },
    sendQueuedAgain: (q: QueuedArrival) => void queue.sendAgain(q),
  });

  return {
    warehouseOptions: warehouses,
    warehouseName,
    ddt,
    magazzino,
    setMagazzino,
    today,
    queue,
    copy: copy.copy,
    copySettled: copy.settled,
    current,
    values: fields.values,
    feedback,
    reading: state.reading,
    lastCode: state.lastCode,
    held,
    waiting,
    choice: choiceOf(state),
    /** The screen's named state (receiving-state.ts). */
    phase: state.screen.name,
    searchBusy: state.reading !== null,
    scanRef,
    ddtRef,
    warehouseRef,
    rowRefs,
    focusScan,
    ...actions,
  };
}
