"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { readSscc } from "../../../lib/sscc";
import type { PalletOutput, ReceivePalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import { type DescribedError, describeError } from "../../errors";
import { useMutationCall } from "../../hooks";
import { type Outcome, signal } from "../../feedback";
import { count } from "../../format";
import type { FlushReport } from "../../offline/device-queue";
import { sendOrQueue } from "../../offline/send-or-queue";
import { useTRPC } from "../../trpc";
import { useMachine } from "../../use-machine";
import { useWriteKey } from "../../write-key";
import { sendDifferencePhotos } from "./photo";
import { describeMarks, describeReceipt, draftFor, draftProblem, markOf, type PalletDraft, type PalletMark } from "./pallet-draft";
import { declared, noPallet, palletPhase, palletStep } from "./pallet-state";
import { lookUpPallet, type QueuedPallet } from "./pallet-copy";
import { usePalletCopy } from "./use-pallet-copy";
import { usePalletQueue } from "./use-pallet-queue";

/** Failures after which the device's copy answers a scan: the service could not be reached. */
const UNREACHABLE = new Set(["offline", "timeout", "rete"]);

export type { PalletDraft, PalletMark } from "./pallet-draft";

/** What the pallet view needs of the screen around it. */
export interface PalletDeps {
  /** A receipt with arrivals: the label is offered. */
  onReceived?: (sscc: string, movimenti: number[]) => void;
  /** The caret back in the scan field, after every action on the card. */
  focusScan: () => void;
  /** The caret in the delivery note, when the receipt waits for it. */
  focusDdt: () => void;
  /** The codes read while the card held them, to read now, in their order (the row-by-row scan). */
  release: (codes: string[]) => void;
}

/**
 * A pallet on the receiving bay (docs/api.md section 12): a scanned SSCC shows the pallet's rows, the operator
 * marks a row short, damaged or wrong, Enter receives the whole pallet in one call (POST /colli/{sscc}/ricevi,
 * with the screen's delivery note and an Idempotency-Key). Apart from useReceiving, whose row-by-row scan
 * queue stays as it is: `intercept` takes an SSCC before that queue reads it. Offline, the device's copy of
 * the announced pallets answers the scan and Enter queues the receipt (usePalletQueue), sent once when the
 * network returns.
 *
 * One card at a time: a code that is not an SSCC, read while a pallet is shown, closes the pallet (nothing was
 * declared on it), or, when a difference is marked or being written, waits for the pallet to be received or
 * closed, so what the operator declared is never dropped by a scan. A difference form left open is taken by
 * the receipt (or, when it is not valid, the receipt asks for it). A receipt refused because another handheld
 * received the pallet first leaves the card as received, by whom, with the marks said not recorded.
 */
export function usePallet({ onReceived, focusScan, focusDdt, release }: PalletDeps) {
  const trpc = useTRPC();
  const client = useQueryClient();
  // The card's state (pallet-state.ts); `now()` is what a scan reads between renders.
  const { state, send, now } = useMachine(palletStep, noPallet);
  const { collo, marks, draft, photos } = state;
  const draftRef = useRef<HTMLInputElement>(null);
  const photoKey = useWriteKey();
  const uploadPhoto = useMutationCall(trpc.notices.addDifferencePhoto.mutationOptions({ trpc: { context: photoKey.context } }));
  const queue = usePalletQueue(onReport);
  // The receiving warehouse chosen on the screen (useReceiving's): the copy is fetched once there is one.
  const [warehouse, setWarehouse] = useState<string | null>(null);
  const copy = usePalletCopy(queue.db, queue.online, warehouse !== null);

  function say(outcome: Outcome, text: string, title = "Collo") {
    signal(outcome);
    send({ type: "said", message: { outcome, title, text } });
  }

  /** The card goes: its marks, photos and form with it; the codes it held are read now. */
  function clear() {
    const codes = now().held;
    send({ type: "closed" });
    focusScan();
    if (codes.length > 0) release(codes);
  }

  function focusDraft() {
    requestAnimationFrame(() => {
      draftRef.current?.focus();
      draftRef.current?.select();
    });
  }

  function onReport(r: FlushReport<QueuedPallet>) {
    const refused = r.refused[0];
    const done = [...r.sent, ...r.verified, ...r.resent];
    if (refused) say("ko", `Collo ${refused.richiesta.sscc} in coda rifiutato: ${refused.errore?.messaggio ?? ""}`, "Collo rifiutato");
    else if (done.length > 0)
      say("ok", `Ricevuti dalla coda: ${done.map((q) => `collo ${q.richiesta.sscc}`).join(", ")}. Registrati una volta sola.`);
    if (done.length > 0) {
      void client.invalidateQueries();
      void copy.refresh();
    }
  }

  /** The pallet as the service has it; offline (or unreachable), as the device's copy has it. */
  async function find(sscc: string): Promise<PalletOutput | null> {
    const local = () => lookUpPallet(sscc, copy.copyRef.current, queue.itemsRef.current);
    if (!queue.online) return local();
    try {
      return await client.fetchQuery({ ...trpc.notices.pallet.queryOptions({ sscc }), staleTime: 0 });
    } catch (e) {
      if (UNREACHABLE.has(describeError(e).codice)) return local();
      throw e;
    }
  }

  async function open(sscc: string) {
    send({ type: "said", message: null });
    let found: PalletOutput | null;
    try {
      found = await find(sscc);
    } catch (e) {
      return say("ko", `Collo ${sscc}: ${describeError(e).messaggio}`, "Collo non letto");
    }
    send({ type: "opened", collo: found });
    focusScan();
    if (!found)
      return say("ko", `Il collo ${sscc} non è in nessun avviso di spedizione: ricevere la merce riga per riga.`, "Collo non annunciato");
    if (found.stato === "ricevuto")
      return say(
        "ko",
        `Il collo ${sscc} (avviso ${found.avviso.numero}) è già stato ricevuto${found.ricevuto ? ` ${describeReceipt(found.ricevuto)}` : ""}. Invio chiude la scheda.`,
        "Collo già ricevuto",
      );
    say(
      "ok",
      `Collo ${sscc}, avviso ${found.avviso.numero}: ${count(found.righe.length, "riga", "righe")}. Segnare le differenze, poi Invio.`,
    );
  }

  /**
   * A code read anywhere on the screen: an SSCC is the pallet's; anything else goes on to the row-by-row scan,
   * once the pallet shown has nothing that its closing would drop (else it waits for the pallet). True: taken.
   */
  function intercept(code: string): boolean {
    const card = now();
    const shown = card.collo;
    const sscc = readSscc(code);
    const kept = declared(card);
    // Codes already waiting for the card: the next ones wait behind them, in the order they came.
    if (shown !== null && (kept || card.held.length > 0) && sscc !== shown.sscc) {
      send({ type: "held", code });
      say(
        "info",
        `${code} sarà letto dopo il collo ${shown.sscc}: ${shown.stato === "atteso" ? "Invio riceve il collo, «Chiudi senza ricevere» lo lascia" : "Invio chiude la scheda del collo"}.`,
        "Codice in attesa del collo",
      );
      return true;
    }
    if (sscc !== null) {
      // The pallet shown read again: its marks stay.
      if (kept) say("info", `Il collo ${sscc} è già aperto: le differenze segnate restano. Invio lo riceve.`);
      else void open(sscc);
      return true;
    }
    if (shown === null) return false;
    if (shown.stato === "atteso")
      say(
        "info",
        `Collo ${shown.sscc} lasciato senza riceverlo, per leggere ${code}: per riceverlo leggere di nuovo l'SSCC.`,
        "Collo lasciato",
      );
    clear();
    return false;
  }

  /** The form left open on the card, made a mark; null when it cannot be (said, the caret in it). */
  function takeDraft(): Record<number, PalletMark> | null {
    const { collo: shown, draft: d, marks: all } = now();
    if (!shown || !d) return all;
    const row = shown.righe.find((r) => r.indice === d.indice)!;
    const problem = draftProblem(d, row);
    if (problem) {
      say("ko", `${problem} Poi Invio.`, `Differenza della riga ${d.indice + 1} da completare`);
      focusDraft();
      return null;
    }
    return send({ type: "draftTaken", mark: markOf(d) }).marks;
  }

  /** Enter on the card: the pallet received with what is marked (and the form left open); on a received card, closed. */
  async function receive(ddt: string) {
    const { collo, sending } = now();
    if (!collo || sending) return;
    if (collo.stato === "ricevuto") return clear();
    const all = takeDraft();
    if (all === null) return;
    if (!ddt.trim()) {
      focusDdt();
      return say(
        "ko",
        "Scrivere il DDT del fornitore: Invio torna al campo di lettura, un altro Invio riceve il collo.",
        "Indicare il DDT",
      );
    }
    focusScan();
    const differenze = Object.entries(all).map(([indice, m]) => ({
      indice: Number(indice),
      quantita: m.quantita,
      motivo: m.motivo,
      ...(m.nota.trim() ? { nota: m.nota.trim() } : {}),
    }));
    const richiesta = { sscc: collo.sscc, ddt: ddt.trim(), ...(differenze.length > 0 ? { differenze } : {}) };
    const toUpload = now().photos;
    send({ type: "sending" });
    // Sent now, or queued under the key fixed now: whatever happens to the answers, the pallet is received once.
    const out = await queue.lock(() =>
      sendOrQueue({
        online: queue.online,
        send: (chiave) => queue.receive(richiesta, chiave),
        queue: (stato, chiave) => queue.add({ richiesta, chiave, stato, avviso: collo.avviso.numero, righe: collo.righe.length }),
      }),
    );
    send({ type: "answered" });
    focusScan();
    if (out.kind === "queued" || out.kind === "uncertain") {
      const photosLost =
        Object.keys(toUpload).length > 0
          ? ` ${out.kind === "queued" ? "Senza rete" : "Senza risposta"} le foto non si inviano e non sono state conservate: avvisare il responsabile della differenza.`
          : "";
      if (out.kind === "queued")
        say("ok", `Collo ${collo.sscc} in coda: sarà ricevuto al ritorno della rete, una volta sola.${photosLost}`);
      else
        say(
          "ko",
          `Collo ${collo.sscc}: il servizio non ha risposto. In coda per la verifica: sarà ricevuto una volta sola.${photosLost}`,
          "Esito incerto",
        );
      return clear();
    }
    if (out.kind === "refused") {
      if (out.error.codice === "collo_gia_ricevuto") return void (await receivedElsewhere(collo, all, out.error));
      return say("ko", out.error.messaggio, "Collo non ricevuto");
    }
    const received = out.answer.out;
    const refused = received.righe.filter((r) => r.esito === "rifiutata");
    const noted = received.righe.reduce((n, r) => n + (r.differenze?.length ?? 0), 0);
    const text =
      `Collo ${collo.sscc} ricevuto: ${count(received.registrate, "riga registrata", "righe registrate")}` +
      (noted > 0 ? `, ${count(noted, "differenza annotata", "differenze annotate")}` : "") +
      (refused.length > 0 ? `; rifiutate: ${refused.map((r) => `riga ${r.indice + 1} (${r.errore?.messaggio})`).join("; ")}` : ".");
    say(refused.length > 0 ? "ko" : "ok", text, refused.length > 0 ? "Collo ricevuto in parte" : "Collo ricevuto");
    clear();
    if (Object.keys(toUpload).length > 0) void sendPhotos(received, toUpload, all, text, refused.length > 0 ? "ko" : "ok");
    // Today's arrivals and the orders' figures moved.
    void client.invalidateQueries();
    void copy.refresh();
    if (received.registrate > 0)
      onReceived?.(
        collo.sscc,
        received.righe.flatMap((r) => (r.movimento === undefined ? [] : [r.movimento])),
      );
  }

  /**
   * Another handheld received the pallet first: the card shows it received, by whom, under which DDT and
   * when (the service's `collo.ricevuto`), and keeps the marks, said not recorded, for the operator to settle
   * with whoever received it.
   */
  async function receivedElsewhere(shown: PalletOutput, all: Record<number, PalletMark>, f: DescribedError) {
    let fresh: PalletOutput | null = null;
    try {
      fresh = await find(shown.sscc);
    } catch {
      // The refusal's own words say who, when the pallet cannot be read again.
    }
    const received: PalletOutput = fresh?.stato === "ricevuto" ? fresh : { ...shown, stato: "ricevuto" };
    send({ type: "receivedElsewhere", collo: received, unrecorded: Object.keys(all).length > 0 });
    const who = received.ricevuto ? `Ricevuto ${describeReceipt(received.ricevuto)}.` : f.messaggio;
    const lost =
      Object.keys(all).length > 0
        ? ` NON registrate le differenze segnate qui: ${describeMarks(received, all)}. Accordarsi con ${received.ricevuto?.da ?? "chi l'ha ricevuto"}.`
        : " Qui non è stato registrato nulla.";
    say("ko", `${who}${lost}`, `Collo già ricevuto${received.ricevuto ? ` da ${received.ricevuto.da}` : ""}`);
  }

  /** The photos, once the receipt created the differences they show; their outcome added to the receipt's message. */
  async function sendPhotos(
    out: ReceivePalletOutput,
    toUpload: Record<number, Blob>,
    marked: Record<number, PalletMark>,
    text: string,
    outcome: Outcome,
  ) {
    const { sent, failed } = await sendDifferencePhotos(out, toUpload, marked, async (body) => {
      photoKey.for(body);
      try {
        await uploadPhoto(body);
        photoKey.settle();
      } catch (e) {
        photoKey.settle(e);
        throw e;
      }
    });
    const tail = (sent > 0 ? ` Foto inviate: ${sent}.` : "") + (failed.length > 0 ? ` Foto non inviate: ${failed.join("; ")}.` : "");
    say(failed.length > 0 ? "ko" : outcome, `${text}${tail}`);
  }

  /** The form on a row: opened with the caret in its quantity. */
  function editMark(indice: number) {
    const { collo: shown, marks: all } = now();
    const row = shown?.righe.find((r) => r.indice === indice);
    if (!row) return;
    send({ type: "draftOpened", draft: draftFor(row, all[indice]) });
    focusDraft();
  }

  /** The form's Salva (or Enter in it): a mark, or the reason it is not one yet. */
  function saveDraft() {
    const { collo: shown, draft: d } = now();
    const row = d && shown?.righe.find((r) => r.indice === d.indice);
    if (!d || !row) return;
    const problem = draftProblem(d, row);
    if (problem) {
      say("ko", problem, `Differenza della riga ${d.indice + 1} da completare`);
      return focusDraft();
    }
    send({ type: "draftTaken", mark: markOf(d) });
    focusScan();
  }

  return {
    collo,
    marks,
    draft,
    draftRef,
    editMark,
    changeDraft: (patch: Partial<PalletDraft>) => {
      send({ type: "draftChanged", patch });
      // A reason chosen: the quantity is what is typed next.
      if (patch.motivo !== undefined) focusDraft();
    },
    saveDraft,
    cancelDraft: () => {
      send({ type: "draftClosed" });
      focusScan();
    },
    removeMark: (indice: number) => {
      send({ type: "marked", indice, mark: null });
      send({ type: "draftClosed" });
      focusScan();
    },
    unrecorded: state.unrecorded,
    held: state.held,
    photos,
    attachPhoto: (indice: number, file: Blob | null) => void send({ type: "photo", indice, file }),
    message: state.message,
    /** The card's named state (pallet-state.ts). */
    phase: palletPhase(state),
    intercept,
    receive,
    queue,
    setWarehouse,
    copySettled: copy.settled,
    discardQueued: queue.remove,
    sendQueuedAgain: queue.sendAgain,
    saving: state.sending,
    close: clear,
  };
}
