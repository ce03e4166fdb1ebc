"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { readSscc } from "../../../lib/sscc";
import type { MotivoDifferenza, PalletOutput } from "../../../server/modules/notices/notices.schemas";
import { type Outcome, signal } from "../../feedback";
import { useTRPC } from "../../trpc";
import { useWrite } from "../../write-key";

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
 * queue stays as it is: `intercept` takes an SSCC before that queue reads it.
 */
export function usePallet() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const [collo, setCollo] = useState<PalletOutput | null>(null);
  const [marks, setMarks] = useState<Record<number, PalletMark>>({});
  const [message, setMessage] = useState<{ outcome: Outcome; text: string } | null>(null);
  const write = useWrite((context) => trpc.notices.receive.mutationOptions({ trpc: { context } }));

  function say(outcome: Outcome, text: string) {
    signal(outcome);
    setMessage({ outcome, text });
  }

  async function open(sscc: string) {
    setMessage(null);
    const found = await client.fetchQuery({ ...trpc.notices.pallet.queryOptions({ sscc }), staleTime: 0 });
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
    const out = await write.run({ sscc: collo.sscc, ddt: ddt.trim(), ...(differenze.length > 0 ? { differenze } : {}) });
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
  }

  function mark(indice: number, m: PalletMark | null) {
    setMarks((all) => {
      const { [indice]: _, ...rest } = all;
      return m === null ? rest : { ...rest, [indice]: m };
    });
  }

  return { collo, marks, mark, message, intercept, receive, saving: write.saving, error: write.error, close: () => setCollo(null) };
}
