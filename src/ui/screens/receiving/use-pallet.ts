"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { readSscc } from "../../../lib/sscc";
import type { MotivoDifferenza, PalletOutput } from "../../../server/modules/notices/notices.schemas";
import { describeError, newIdempotencyKey } from "../../errors";
import { type Outcome, signal } from "../../feedback";
import type { FlushReport } from "../../offline/device-queue";
import { useTRPC } from "../../trpc";
import { useWrite } from "../../write-key";
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
  const write = useWrite((context) => trpc.notices.receive.mutationOptions({ trpc: { context } }));
  const queue = usePalletQueue(onReport);
  const copy = usePalletCopy(queue.db, queue.online);

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
    setCollo(found);
    if (!found) return say("ko", `Il collo ${sscc} non è in nessun avviso di spedizione: ricevere la merce riga per riga.`);
    if (found.stato === "ricevuto") return say("ko", `Il collo ${sscc} (avviso ${found.avviso.numero}) è già stato ricevuto.`);
    say("ok", `Collo ${sscc}, avviso ${found.avviso.numero}: ${found.righe.length} righe. Segnare le differenze, poi Invio.`);
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
      say("ok", `Collo ${collo.sscc} in coda: sarà ricevuto al ritorno della rete, una volta sola.`);
      setCollo(null);
      setMarks({});
      return;
    }
    const out = await write.run(richiesta);
    if (!out) return;
    const refused = out.righe.filter((r) => r.esito === "rifiutata");
    const noted = out.righe.reduce((n, r) => n + (r.differenze?.length ?? 0), 0);
    say(
      refused.length > 0 ? "ko" : "ok",
      `Collo ${collo.sscc} ricevuto: ${out.registrate} righe registrate` +
        (noted > 0 ? `, ${noted} differenze annotate` : "") +
        (refused.length > 0 ? `; rifiutate: ${refused.map((r) => `riga ${r.indice + 1} (${r.errore?.messaggio})`).join("; ")}` : "."),
    );
    setCollo(null);
    setMarks({});
    // Today's arrivals and the orders' figures moved.
    void client.invalidateQueries();
    void copy.refresh();
    if (out.registrate > 0)
      onReceived?.(
        collo.sscc,
        out.righe.flatMap((r) => (r.movimento === undefined ? [] : [r.movimento])),
      );
  }

  function mark(indice: number, m: PalletMark | null) {
    setMarks((all) => {
      const { [indice]: _, ...rest } = all;
      return m === null ? rest : { ...rest, [indice]: m };
    });
  }

  return {
    collo,
    marks,
    mark,
    message,
    intercept,
    receive,
    queue,
    discardQueued: queue.remove,
    sendQueuedAgain: queue.sendAgain,
    saving: write.saving,
    error: write.error,
    close: () => setCollo(null),
  };
}
