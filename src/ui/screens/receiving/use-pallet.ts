"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { readSscc } from "../../../lib/sscc";
import type { PalletOutput, ReceivePalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import { type DescribedError, describeError, newIdempotencyKey } from "../../errors";
import { useMutationCall } from "../../hooks";
import { type Outcome, signal } from "../../feedback";
import { count } from "../../format";
import type { FlushReport } from "../../offline/device-queue";
import { useTRPC } from "../../trpc";
import { useWrite, useWriteKey } from "../../write-key";
import { sendDifferencePhotos } from "./photo";
import { describeMarks, describeReceipt, draftFor, draftProblem, markOf, type PalletDraft, type PalletMark } from "./pallet-draft";
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
  const [collo, setCollo] = useState<PalletOutput | null>(null);
  const [marks, setMarks] = useState<Record<number, PalletMark>>({});
  const [message, setMessage] = useState<{ outcome: Outcome; title: string; text: string } | null>(null);
  const [draft, setDraftState] = useState<PalletDraft | null>(null);
  // Marks kept on a card whose receipt was refused (received meanwhile elsewhere): shown, never sent.
  const [unrecorded, setUnrecorded] = useState(false);
  const [held, setHeldState] = useState<string[]>([]);
  // What a scan reads between renders: the card as it is now, not as the last render saw it.
  const live = useRef({ collo, marks, draft, held });
  live.current = { collo, marks, draft, held };
  const draftRef = useRef<HTMLInputElement>(null);
  const failure = useRef<DescribedError | null>(null);
  const [photos, setPhotos] = useState<Record<number, Blob>>({});
  const photoKey = useWriteKey();
  const uploadPhoto = useMutationCall(trpc.notices.addDifferencePhoto.mutationOptions({ trpc: { context: photoKey.context } }));
  const write = useWrite(
    (context) => trpc.notices.receive.mutationOptions({ trpc: { context } }),
    (f) => {
      failure.current = f;
      return undefined;
    },
  );
  const queue = usePalletQueue(onReport);
  // The receiving warehouse chosen on the screen (useReceiving's): the copy is fetched once there is one.
  const [warehouse, setWarehouse] = useState<string | null>(null);
  const copy = usePalletCopy(queue.db, queue.online, warehouse !== null);

  function say(outcome: Outcome, text: string, title = "Collo") {
    signal(outcome);
    setMessage({ outcome, title, text });
  }

  function setDraft(d: PalletDraft | null) {
    live.current.draft = d;
    setDraftState(d);
  }
  function setHeld(codes: string[]) {
    live.current.held = codes;
    setHeldState(codes);
  }

  /** The card goes: its marks, photos and form with it; the codes it held are read now. */
  function clear() {
    setCollo(null);
    setMarks({});
    setPhotos({});
    setDraft(null);
    setUnrecorded(false);
    const codes = live.current.held;
    live.current = { collo: null, marks: {}, draft: null, held: [] };
    setHeldState([]);
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
    setMessage(null);
    let found: PalletOutput | null;
    try {
      found = await find(sscc);
    } catch (e) {
      return say("ko", `Collo ${sscc}: ${describeError(e).messaggio}`, "Collo non letto");
    }
    setMarks({});
    setPhotos({});
    setDraft(null);
    setUnrecorded(false);
    setCollo(found);
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
    const shown = live.current.collo;
    const sscc = readSscc(code);
    const declared =
      shown !== null && shown.stato === "atteso" && (Object.keys(live.current.marks).length > 0 || live.current.draft !== null);
    // Codes already waiting for the card: the next ones wait behind them, in the order they came.
    if (shown !== null && (declared || live.current.held.length > 0) && sscc !== shown.sscc) {
      setHeld([...live.current.held, code]);
      say(
        "info",
        `${code} sarà letto dopo il collo ${shown.sscc}: ${shown.stato === "atteso" ? "Invio riceve il collo, «Chiudi senza ricevere» lo lascia" : "Invio chiude la scheda del collo"}.`,
        "Codice in attesa del collo",
      );
      return true;
    }
    if (sscc !== null) {
      // The pallet shown read again: its marks stay.
      if (declared) say("info", `Il collo ${sscc} è già aperto: le differenze segnate restano. Invio lo riceve.`);
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
    const d = live.current.draft;
    if (!collo || !d) return marks;
    const row = collo.righe.find((r) => r.indice === d.indice)!;
    const problem = draftProblem(d, row);
    if (problem) {
      say("ko", `${problem} Poi Invio.`, `Differenza della riga ${d.indice + 1} da completare`);
      focusDraft();
      return null;
    }
    const all = { ...marks, [d.indice]: markOf(d) };
    live.current.marks = all;
    setMarks(all);
    setDraft(null);
    return all;
  }

  /** Enter on the card: the pallet received with what is marked (and the form left open); on a received card, closed. */
  async function receive(ddt: string) {
    if (!collo) return;
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
    if (!queue.online) {
      // The key is fixed now: whatever happens to the answers later, the service receives the pallet once.
      await queue.add({ richiesta, chiave: newIdempotencyKey(), stato: "in_coda", avviso: collo.avviso.numero, righe: collo.righe.length });
      const lost =
        Object.keys(photos).length > 0
          ? " Senza rete le foto non si inviano e non sono state conservate: avvisare il responsabile della differenza."
          : "";
      say("ok", `Collo ${collo.sscc} in coda: sarà ricevuto al ritorno della rete, una volta sola.${lost}`);
      clear();
      return;
    }
    failure.current = null;
    const out = await write.run(richiesta);
    focusScan();
    if (!out) {
      const f = failure.current as DescribedError | null;
      if (f?.codice === "collo_gia_ricevuto") return void (await receivedElsewhere(collo, all, f));
      return say("ko", f?.messaggio ?? "Il servizio non ha risposto.", "Collo non ricevuto");
    }
    const refused = out.righe.filter((r) => r.esito === "rifiutata");
    const noted = out.righe.reduce((n, r) => n + (r.differenze?.length ?? 0), 0);
    const text =
      `Collo ${collo.sscc} ricevuto: ${count(out.registrate, "riga registrata", "righe registrate")}` +
      (noted > 0 ? `, ${count(noted, "differenza annotata", "differenze annotate")}` : "") +
      (refused.length > 0 ? `; rifiutate: ${refused.map((r) => `riga ${r.indice + 1} (${r.errore?.messaggio})`).join("; ")}` : ".");
    say(refused.length > 0 ? "ko" : "ok", text, refused.length > 0 ? "Collo ricevuto in parte" : "Collo ricevuto");
    const toUpload = photos;
    clear();
    if (Object.keys(toUpload).length > 0) void sendPhotos(out, toUpload, all, text, refused.length > 0 ? "ko" : "ok");
    // Today's arrivals and the orders' figures moved.
    void client.invalidateQueries();
    void copy.refresh();
    if (out.registrate > 0)
      onReceived?.(
        collo.sscc,
        out.righe.flatMap((r) => (r.movimento === undefined ? [] : [r.movimento])),
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
    const now: PalletOutput = fresh?.stato === "ricevuto" ? fresh : { ...shown, stato: "ricevuto" };
    setCollo(now);
    setUnrecorded(Object.keys(all).length > 0);
    const who = now.ricevuto ? `Ricevuto ${describeReceipt(now.ricevuto)}.` : f.messaggio;
    const lost =
      Object.keys(all).length > 0
        ? ` NON registrate le differenze segnate qui: ${describeMarks(now, all)}. Accordarsi con ${now.ricevuto?.da ?? "chi l'ha ricevuto"}.`
        : " Qui non è stato registrato nulla.";
    say("ko", `${who}${lost}`, `Collo già ricevuto${now.ricevuto ? ` da ${now.ricevuto.da}` : ""}`);
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

  function attachPhoto(indice: number, file: Blob | null) {
    setPhotos((all) => {
      const { [indice]: _, ...rest } = all;
      return file === null ? rest : { ...rest, [indice]: file };
    });
  }

  function mark(indice: number, m: PalletMark | null) {
    if (m === null) attachPhoto(indice, null);
    const { [indice]: _, ...rest } = live.current.marks;
    const next = m === null ? rest : { ...rest, [indice]: m };
    live.current.marks = next;
    setMarks(next);
  }

  /** The form on a row: opened with the caret in its quantity. */
  function editMark(indice: number) {
    const row = collo?.righe.find((r) => r.indice === indice);
    if (!row) return;
    setDraft(draftFor(row, marks[indice]));
    focusDraft();
  }

  /** The form's Salva (or Enter in it): a mark, or the reason it is not one yet. */
  function saveDraft() {
    const d = live.current.draft;
    const row = d && collo?.righe.find((r) => r.indice === d.indice);
    if (!d || !row) return;
    const problem = draftProblem(d, row);
    if (problem) {
      say("ko", problem, `Differenza della riga ${d.indice + 1} da completare`);
      return focusDraft();
    }
    mark(d.indice, markOf(d));
    setDraft(null);
    focusScan();
  }

  return {
    collo,
    marks,
    draft,
    draftRef,
    editMark,
    changeDraft: (patch: Partial<PalletDraft>) => {
      const d = live.current.draft;
      if (d) setDraft({ ...d, ...patch });
      // A reason chosen: the quantity is what is typed next.
      if (patch.motivo !== undefined) focusDraft();
    },
    saveDraft,
    cancelDraft: () => {
      setDraft(null);
      focusScan();
    },
    removeMark: (indice: number) => {
      mark(indice, null);
      setDraft(null);
      focusScan();
    },
    unrecorded,
    held,
    photos,
    attachPhoto,
    message,
    intercept,
    receive,
    queue,
    setWarehouse,
    copySettled: copy.settled,
    discardQueued: queue.remove,
    sendQueuedAgain: queue.sendAgain,
    saving: write.saving,
    close: clear,
  };
}
