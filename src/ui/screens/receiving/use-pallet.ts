"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { readSscc } from "../../../lib/sscc";
import type { MotivoDifferenza, PalletOutput, ReceivePalletOutput } from "../../../server/modules/notices/notices.schemas";
import { describeError, newIdempotencyKey } from "../../errors";
import { useMutationCall } from "../../hooks";
import { type Outcome, signal } from "../../feedback";
import { count } from "../../format";
import type { FlushReport } from "../../offline/device-queue";
import { useTRPC } from "../../trpc";
import { useWrite, useWriteKey } from "../../write-key";
import { photoForUpload } from "./photo";
import { lookUpPallet, type QueuedPallet } from "./pallet-copy";
import { usePalletCopy } from "./use-pallet-copy";
import { usePalletQueue } from "./use-pallet-queue";

/** Failures after which the device's copy answers a scan: the service could not be reached. */
const UNREACHABLE = new Set(["offline", "timeout", "rete"]);

/** What the operator declares on one row of the pallet before Enter: not received, recorded as a difference. */
export interface PalletMark {
  quantita: number;
  motivo: Exclude<MotivoDifferenza, "eccedente">;
  nota: string;
}

/**
 * A pallet on the receiving bay (API.md section 12): a scanned SSCC shows the pallet's rows, the operator
 * marks a row short, damaged or wrong, Enter receives the whole pallet in one call (POST /colli/{sscc}/ricevi,
 * with the screen's delivery note and an Idempotency-Key). Apart from useReceiving, whose row-by-row scan
 * queue stays as it is: `intercept` takes an SSCC before that queue reads it. Offline, the device's copy of
 * the announced pallets answers the scan and Enter queues the receipt (usePalletQueue), sent once when the
 * network returns.
 */
export function usePallet(onReceived?: (sscc: string, movimenti: number[]) => void) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [collo, setCollo] = useState<PalletOutput | null>(null);
  const [marks, setMarks] = useState<Record<number, PalletMark>>({});
  const [message, setMessage] = useState<{ outcome: Outcome; text: string } | null>(null);
  const [photos, setPhotos] = useState<Record<number, Blob>>({});
  const photoKey = useWriteKey();
  const uploadPhoto = useMutationCall(trpc.notices.addDifferencePhoto.mutationOptions({ trpc: { context: photoKey.context } }));
  const write = useWrite((context) => trpc.notices.receive.mutationOptions({ trpc: { context } }));
  const queue = usePalletQueue(onReport);
  // The receiving warehouse chosen on the screen (useReceiving's): the copy is fetched once there is one.
  const [warehouse, setWarehouse] = useState<string | null>(null);
  const copy = usePalletCopy(queue.db, queue.online, warehouse !== null);

  function say(outcome: Outcome, text: string) {
    signal(outcome);
    setMessage({ outcome, text });
  }

  function onReport(r: FlushReport<QueuedPallet>) {
    const refused = r.refused[0];
    const done = [...r.sent, ...r.verified, ...r.resent];
    if (refused) say("ko", `Collo ${refused.richiesta.sscc} in coda rifiutato: ${refused.errore?.messaggio ?? ""}`);
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
      return say("ko", `Collo ${sscc}: ${describeError(e).messaggio}`);
    }
    setMarks({});
    setPhotos({});
    setCollo(found);
    if (!found) return say("ko", `Il collo ${sscc} non è in nessun avviso di spedizione: ricevere la merce riga per riga.`);
    if (found.stato === "ricevuto") return say("ko", `Il collo ${sscc} (avviso ${found.avviso.numero}) è già stato ricevuto.`);
    say(
      "ok",
      `Collo ${sscc}, avviso ${found.avviso.numero}: ${count(found.righe.length, "riga", "righe")}. Segnare le differenze, poi Invio.`,
    );
  }

  /** A code read anywhere on the screen: an SSCC is the pallet's, anything else goes on to the row-by-row scan. */
  function intercept(code: string): boolean {
    const sscc = readSscc(code);
    if (sscc === null) return false;
    void open(sscc);
    return true;
  }

  async function receive(ddt: string) {
    if (!collo || collo.stato === "ricevuto") return;
    if (!ddt.trim()) return say("ko", "Indicare il DDT del fornitore prima di ricevere il collo.");
    const differenze = Object.entries(marks).map(([indice, m]) => ({
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
      setCollo(null);
      setMarks({});
      setPhotos({});
      return;
    }
    const out = await write.run(richiesta);
    if (!out) return;
    const refused = out.righe.filter((r) => r.esito === "rifiutata");
    const noted = out.righe.reduce((n, r) => n + (r.differenze?.length ?? 0), 0);
    const text =
      `Collo ${collo.sscc} ricevuto: ${count(out.registrate, "riga registrata", "righe registrate")}` +
      (noted > 0 ? `, ${count(noted, "differenza annotata", "differenze annotate")}` : "") +
      (refused.length > 0 ? `; rifiutate: ${refused.map((r) => `riga ${r.indice + 1} (${r.errore?.messaggio})`).join("; ")}` : ".");
    say(refused.length > 0 ? "ko" : "ok", text);
    const toUpload = photos;
    setCollo(null);
    setMarks({});
    setPhotos({});
    if (Object.keys(toUpload).length > 0) void sendPhotos(out, toUpload, marks, text, refused.length > 0 ? "ko" : "ok");
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
   * The photos, once the receipt created the differences they show: each to its row's difference of the
   * reason marked (the receipt's answer lists them with ids). One at a time, each with its key, so a retry
   * after a dead spot stores it once. The outcome is added to the receipt's message.
   */
  async function sendPhotos(
    out: ReceivePalletOutput,
    toUpload: Record<number, Blob>,
    marked: Record<number, PalletMark>,
    text: string,
    outcome: Outcome,
  ) {
    const failed: string[] = [];
    let sent = 0;
    for (const [indice, file] of Object.entries(toUpload)) {
      const row = out.righe.find((r) => r.indice === Number(indice));
      const d = row?.differenze?.find((x) => x.motivo === marked[Number(indice)]?.motivo);
      if (!d) {
        failed.push(`riga ${Number(indice) + 1} (nessuna differenza registrata)`);
        continue;
      }
      try {
        const body = { differenza: d.id, ...(await photoForUpload(file)) };
        photoKey.for(body);
        await uploadPhoto(body);
        photoKey.settle();
        sent++;
      } catch (e) {
        photoKey.settle(e);
        failed.push(`riga ${Number(indice) + 1} (${e instanceof Error && !("data" in e) ? e.message : describeError(e).messaggio})`);
      }
    }
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
    setMarks((all) => {
      const { [indice]: _, ...rest } = all;
      return m === null ? rest : { ...rest, [indice]: m };
    });
  }

  return {
    collo,
    marks,
    mark,
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
    error: write.error,
    close: () => setCollo(null),
  };
}
