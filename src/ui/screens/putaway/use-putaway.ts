"use client";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { StoreInput, StorePalletInput, WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { signal } from "../../feedback";
import { count, qty, warehouseLabel } from "../../format";
import { useCodeTypedBeforeStart, useRemembered } from "../../hooks";
import { isEditable, useScanner } from "../../scanner/use-scanner";
import { useTRPC } from "../../trpc";
import { type FlushReport, passSummary } from "../../offline/device-queue";
import { sendOrQueue } from "../../offline/send-or-queue";
import { useMachine } from "../../use-machine";
import type { Feedback } from "../receiving/types";
import {
  destinationProblem,
  knowsCode,
  type Pallet,
  palletDestinationProblem,
  palletOf,
  palletProposal,
  readCode,
  round3,
  waiting,
} from "./lookup";
import { phaseOf, type PutawayState, putawayStep } from "./putaway-state";
import { usePutawayCopy } from "./use-putaway-copy";
import { usePutawayLabel } from "./use-putaway-label";
import { isPalletRequest, partsOf, type QueuedPutaway, usePutawayQueue } from "./use-putaway-queue";

const REASON: Record<NonNullable<WorklistRow["proposta"]>["motivo"], string> = {
  preferita: "ubicazione preferita dell'articolo",
  lotto: "contiene già lo stesso lotto",
  articolo: "contiene già l'articolo",
};

export const reasonOf = (p: NonNullable<WorklistRow["proposta"]>) => REASON[p.motivo];

/**
 * The putaway screen (docs/operator-guide.md "Putaway"): scan the goods, then the destination's label, then Enter. Every
 * code goes through the one scan path (useScanner) and is read against the handheld's copy of the
 * warehouse, one at a time in the order read; each confirmation is one `putaway.store` with its own
 * Idempotency-Key, queued on the handheld when the network is away or the answer is lost.
 */
export function usePutaway() {
  const trpc = useTRPC();
  const warehouses = useQuery(trpc.putaway.warehouses.queryOptions());
  // `codice` is missing from a list remembered by an older version of the screen: its name stands alone then.
  const [knownWarehouses, setKnownWarehouses] = useRemembered<{ id: number; codice?: string; nome: string }[]>("stoccaggio.magazzini", []);
  useEffect(() => {
    if (warehouses.data) setKnownWarehouses(warehouses.data.magazzini.map(({ id, codice, nome }) => ({ id, codice, nome })));
  }, [warehouses.data, setKnownWarehouses]);
  const [magazzino, setMagazzinoState] = useRemembered<string | null>("stoccaggio.magazzino", null);
  // Scans are read one after the other, faster than the screen renders: each reads (`now`) the choice the
  // one before it made, not the last render's.
  const { state: choice, send, now: choiceNow } = useMachine(putawayStep, null, useRemembered<PutawayState>("stoccaggio.scelta", null));
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const scanRef = useRef<HTMLInputElement | null>(null);
  const quantityRef = useRef<HTMLInputElement | null>(null);

  const onReport = useCallback((r: FlushReport<QueuedPutaway>) => {
    const refused = r.refused[0];
    if (refused) {
      signal("ko");
      setFeedback({
        outcome: "ko",
        title: "Stoccaggio in coda rifiutato",
        message: `${refused.errore?.messaggio ?? ""} Decidere nell'elenco «Da inviare».`,
      });
      return;
    }
    const summary = passSummary(r, "stoccaggio", "stoccaggi");
    if (summary) {
      void refreshRef.current();
      setFeedback({ outcome: "ok", ...summary });
    }
  }, []);
  const queue = usePutawayQueue(onReport);
  const { copy, copyRef, refresh, settled: copySettled } = usePutawayCopy(magazzino, queue.db, queue.online);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;

  /** What this handheld queued from each row of the copy and has not sent: taken off what the row shows. */
  const queued = useMemo(() => {
    const out = new Map<number, number>();
    for (const q of queue.items)
      if (q.stato !== "rifiutato") for (const p of partsOf(q)) out.set(p.riga, round3((out.get(p.riga) ?? 0) + p.quantita));
    return out;
  }, [queue.items]);
  const queuedRef = useRef(queued);
  queuedRef.current = queued;
  /** The pallets this handheld queued: an SSCC is queued once. */
  const queuedPallets = useMemo(
    () =>
      new Set(queue.items.filter((q) => q.stato !== "rifiutato").flatMap((q) => (isPalletRequest(q.richiesta) ? [q.richiesta.sscc] : []))),
    [queue.items],
  );
  const queuedPalletsRef = useRef(queuedPallets);
  queuedPalletsRef.current = queuedPallets;
  const { offerLot, offerPallet, panel: labelPanel } = usePutawayLabel();

  const row = choice && copy ? (copy.righe.find((r) => r.id === choice.riga) ?? null) : null;
  const pallet = choice?.sscc && copy ? palletOf(choice.sscc, copy, queued) : null;
  const rows = useMemo(() => (copy ? copy.righe.filter((r) => waiting(r, queued) > 0) : []), [copy, queued]);
  const warehouseOptions = knownWarehouses.map((w) => ({
    value: String(w.id),
    label: warehouseLabel({ codice: w.codice ?? w.nome, nome: w.nome }),
  }));
  const warehouseName = knownWarehouses.find((w) => String(w.id) === magazzino)?.nome ?? "";

  const focusScan = useCallback(() => scanRef.current?.focus(), []);
  // The caret in the scan field from the start (a reload too): Enter there confirms what is shown. Not if
  // the operator is already in a field (the screen is drawn before it runs, on a slow handheld).
  useEffect(() => {
    if (!isEditable(document.activeElement)) focusScan();
  }, [focusScan]);
  const say = useCallback((f: Feedback) => {
    signal(f.outcome);
    setFeedback(f);
  }, []);

  const choosePallet = useCallback(
    (p: Pallet) => {
      const first = p.parts[0];
      if (!first) return;
      const proposal = palletProposal(p);
      send({ type: "pallet", riga: first.row.id, sscc: p.sscc });
      say({
        outcome: "info",
        title: `Collo ${p.sscc}: ${count(p.parts.length, "riga", "righe")} in ${first.row.ubicazione}`,
        message: proposal
          ? `Il collo si sposta intero: portarlo in ${proposal.ubicazione} (${REASON[proposal.motivo]}, della sua riga più grande) e leggerne l'etichetta.`
          : "Il collo si sposta intero. Nessuna ubicazione proposta: leggere l'etichetta dell'ubicazione scelta.",
      });
      focusScan();
    },
    [send, say, focusScan],
  );

  const choose = useCallback(
    (r: WorklistRow, others = 0) => {
      send({ type: "goods", riga: r.id, quantita: String(waiting(r, queuedRef.current)) });
      say({
        outcome: "info",
        title: `${r.articolo.codice}${r.lotto ? ` lotto ${r.lotto}` : ""}: ${qty(waiting(r, queuedRef.current))} ${r.unita} in ${r.ubicazione}`,
        message: `${
          r.proposta
            ? `Portare in ${r.proposta.ubicazione} (${REASON[r.proposta.motivo]}) e leggerne l'etichetta.`
            : "Nessuna ubicazione proposta: leggere l'etichetta dell'ubicazione scelta."
        }${others > 0 ? ` Arrivo più vecchio per primo: ${others === 1 ? "un'altra riga" : `altre ${others} righe`} nell'elenco sotto.` : ""}`,
      });
      focusScan();
    },
    [send, say, focusScan],
  );

  const handle = useCallback(
    async (code: string) => {
      if (!magazzino) return say({ outcome: "ko", title: "Scegliere il magazzino", message: "Prima il magazzino, poi la merce." });
      let c = copyRef.current;
      if (!c) c = await refresh();
      if (!c)
        return say({
          outcome: "ko",
          title: "Elenco non disponibile",
          message: "Il palmare non ha ancora l'elenco di questo magazzino: collegarsi alla rete.",
        });
      let reading = readCode(code, c, queuedRef.current, queuedPalletsRef.current);
      if (reading.kind === "sconosciuto") {
        // A location, goods or a pallet added since the copy was read: asked once more before refusing.
        const fresh = await refresh();
        if (fresh) {
          c = fresh;
          reading = readCode(code, fresh, queuedRef.current, queuedPalletsRef.current);
        }
      }
      const choice = choiceNow();
      const shown = choice ? c.righe.find((r) => r.id === choice.riga) : undefined;
      const shownPallet = choice?.sscc ? palletOf(choice.sscc, c, queuedRef.current) : null;
      switch (reading.kind) {
        case "rifiuto":
          return say({ outcome: "ko", title: reading.title, message: reading.message });
        case "sconosciuto":
          return say(
            shown && !reading.collo
              ? {
                  outcome: "ko",
                  title: "Ubicazione sconosciuta",
                  message: `«${code}» non è un'ubicazione del magazzino ${warehouseName}: leggere l'etichetta dell'ubicazione di destinazione.`,
                }
              : { outcome: "ko", title: "Codice sconosciuto", message: reading.message },
          );
        case "ubicazione": {
          if (!shown || !choice)
            return say({
              outcome: "ko",
              title: "Leggere prima la merce",
              message: `${reading.location.codice} è un'ubicazione: leggere prima l'articolo da stoccare.`,
            });
          const problem = shownPallet
            ? palletDestinationProblem(reading.location, shownPallet)
            : destinationProblem(reading.location, shown);
          if (problem) return say({ outcome: "ko", title: "Ubicazione non valida", message: problem });
          send({ type: "destination", a: reading.location.codice });
          const proposta = shownPallet ? palletProposal(shownPallet) : shown.proposta;
          const other =
            proposta && proposta.ubicazione !== reading.location.codice ? ` (diversa dalla proposta ${proposta.ubicazione})` : "";
          return say({
            outcome: "info",
            title: `Destinazione ${reading.location.codice}${other}`,
            message: shownPallet
              ? `Invio per stoccare tutto il collo ${shownPallet.sscc}.`
              : `Invio per stoccare ${qty(choice.quantita)} ${shown.unita} di ${shown.articolo.codice}.`,
          });
        }
        case "collo": {
          if (shownPallet && shownPallet.sscc === reading.pallet.sscc)
            return say({ outcome: "info", title: `Ancora il collo ${reading.pallet.sscc}`, message: "Collo già mostrato." });
          return choosePallet(reading.pallet);
        }
        case "merce": {
          if (shown && !shownPallet && reading.rows.some((r) => r.id === shown.id))
            return say({ outcome: "info", title: `Ancora ${shown.articolo.codice}`, message: "Merce già mostrata." });
          const next = reading.rows[0];
          if (next) choose(next, reading.rows.length - 1);
        }
      }
    },
    [magazzino, copyRef, refresh, choiceNow, send, say, choose, choosePallet, warehouseName],
  );

  // One code at a time, in the order read: a burst never overtakes the one before it.
  const chain = useRef<Promise<void>>(Promise.resolve());
  const handleRef = useRef(handle);
  handleRef.current = handle;
  const enqueue = useCallback((code: string) => {
    chain.current = chain.current.then(() => handleRef.current(code)).catch(() => undefined);
  }, []);
  useScanner(
    (code) => enqueue(code),
    (code) => copyRef.current !== null && knowsCode(code, copyRef.current),
  );
  useCodeTypedBeforeStart(scanRef, enqueue, copySettled);

  const [saving, setSaving] = useState(false);
  /**
   * One putaway sent, or queued (sendOrQueue: offline it waits for the network, without an answer it is
   * settled later); each outcome said. A destination refused is read again; a pallet stored elsewhere goes.
   */
  const store = useCallback(
    async (item: Omit<QueuedPutaway, "id" | "utente" | "il" | "chiave_il" | "chiave" | "stato">, what: string, onStored: () => void) => {
      const pallet = isPalletRequest(item.richiesta);
      await queue.lock(async () => {
        const out = await sendOrQueue({
          online: queue.online,
          send: (chiave) => queue.send(item.richiesta, chiave),
          queue: (stato, chiave) => queue.add({ ...item, chiave, stato }),
        });
        if (out.kind === "refused") {
          if (out.error.codice.startsWith("ubicazione")) send({ type: "destinationRefused" });
          if (out.error.codice === "collo_gia_stoccato") {
            send({ type: "done" });
            void refresh();
          }
          return say({
            outcome: "ko",
            title: pallet ? "Stoccaggio del collo rifiutato" : "Stoccaggio rifiutato",
            message: out.error.messaggio,
          });
        }
        send({ type: "done" });
        if (out.kind === "sent") {
          void refresh();
          onStored();
          return say({ outcome: "ok", title: `Stoccato: ${what}`, message: "Leggere la prossima merce." });
        }
        if (out.kind === "queued")
          return say({
            outcome: "info",
            title: `In coda: ${what}`,
            message: pallet ? "Verrà inviato appena torna la rete, una volta sola." : "Verrà inviato appena torna la rete.",
          });
        // No answer: it may have run. The queue settles it under the same key, never writing it twice.
        return say({
          outcome: "info",
          title: `Esito incerto: ${what}`,
          message: "Il palmare lo verifica appena il servizio risponde: non verrà scritto due volte.",
        });
      });
    },
    [queue, send, say, refresh],
  );

  const confirm = useCallback(async () => {
    // The quantity field hands its text at Enter, a moment before this runs: read the choice as it is now.
    const choice = choiceNow();
    if (!row || !choice || !magazzino) return say({ outcome: "ko", title: "Leggere prima la merce", message: "Nessuna merce scelta." });
    if (!choice.a)
      return say({ outcome: "ko", title: "Manca la destinazione", message: "Leggere l'etichetta dell'ubicazione di destinazione." });
    const a = choice.a;
    let sending: () => Promise<void>;
    if (choice.sscc) {
      if (!pallet || pallet.parts.length === 0)
        return say({ outcome: "ko", title: "Collo già stoccato", message: `Del collo ${choice.sscc} non resta nulla da stoccare.` });
      // A pallet's putaway: all of what of it waits, one request (one operation on the service), queued as one.
      const richiesta: StorePalletInput = { magazzino: Number(magazzino), sscc: pallet.sscc, a };
      const parti = pallet.parts.map((x) => ({ riga: x.row.id, quantita: x.quantita }));
      sending = () =>
        store({ richiesta, riga: parti[0]?.riga ?? 0, parti }, `collo ${pallet.sscc} in ${a}`, () => offerPallet(pallet.sscc));
    } else {
      const q = Number(choice.quantita.replace(",", "."));
      const max = waiting(row, queuedRef.current);
      if (!(q > 0) || q > max || round3(q) !== q)
        return say({ outcome: "ko", title: "Quantità non valida", message: `Tra 0 e ${qty(max)}, al massimo 3 decimali.` });
      const richiesta: StoreInput = {
        magazzino: Number(magazzino),
        codice: row.articolo.codice,
        lotto: row.lotto,
        da: row.ubicazione,
        a,
        quantita: q,
      };
      sending = () =>
        store({ richiesta, riga: row.id }, `${qty(q)} ${row.unita} di ${row.articolo.codice} in ${a}`, () => {
          if (row.lotto) offerLot(row, q);
        });
    }
    setSaving(true);
    try {
      await sending();
    } finally {
      setSaving(false);
      focusScan();
    }
  }, [row, magazzino, pallet, choiceNow, store, say, focusScan, offerLot, offerPallet]);

  const setQuantity = useCallback((v: string) => void send({ type: "quantityTyped", quantita: v }), [send]);
  const setMagazzino = useCallback(
    (v: string | null) => {
      setMagazzinoState(v);
      send({ type: "done" });
      setFeedback(null);
    },
    [setMagazzinoState, send],
  );
  const cancel = useCallback(() => {
    send({ type: "done" });
    setFeedback(null);
    focusScan();
  }, [send, focusScan]);
  /** Enter in the scan field with nothing typed confirms; a code typed by hand is read as a scan. */
  const onScanEnter = useCallback((code: string) => (code ? enqueue(code) : void confirm()), [enqueue, confirm]);

  return {
    magazzino,
    setMagazzino,
    warehouseOptions,
    copy,
    rows,
    row,
    pallet,
    choice,
    /** The screen's named state (putaway-state.ts), `sending` while a putaway is on its way. */
    phase: saving ? ("sending" as const) : phaseOf(choice),
    labelPanel,
    left: row ? waiting(row, queued) : 0,
    feedback,
    saving,
    scanRef,
    quantityRef,
    queue,
    queued,
    choose,
    confirm,
    cancel,
    setQuantity,
    onScanEnter,
    enqueue,
  };
}
