"use client";
import { Code } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import type { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { EventType } from "@/lib/domain-lists";
import type { attemptOutput, deliveryOutput } from "@/server/modules/webhooks/webhooks.schemas";
import { describeError } from "../../errors";
import type { useTRPC } from "../../trpc";

/* What the parts of the webhook screen share: the words for events, states and outcomes, the receiver's answer, the refresh after a write. */

export type Delivery = z.infer<typeof deliveryOutput>;
export type Attempt = z.infer<typeof attemptOutput>;
export type DeliveryState = Delivery["stato"];

/** What each event type tells, for the person choosing them. */
export const EVENT_LABEL: Record<EventType, string> = {
  "movimenti.registrati": "movimenti registrati (carichi, scarichi, trasferimenti)",
  "arrivo.registrato": "arrivo registrato",
  "arrivo.annullato": "arrivo annullato",
  "giacenze.allineate": "giacenze allineate (inventario)",
  "documento_vendita.emesso": "documento di vendita emesso",
  "ordine_acquisto.modificato": "ordine d'acquisto nuovo o modificato",
  "articolo.modificato": "articolo nuovo o modificato",
  "cliente.modificato": "cliente nuovo o modificato",
  "fornitore.modificato": "fornitore nuovo o modificato",
  "magazzino.modificato": "magazzino nuovo o modificato",
  "ubicazione.modificato": "ubicazione nuova o modificata",
  "avviso_spedizione.modificato": "avviso di spedizione nuovo, modificato o ricevuto",
  "ricevimento.differenza": "differenza al ricevimento",
  "reso_fornitore.registrato": "reso al fornitore registrato",
  "prenotazione.modificata": "prenotazione nuova o modificata",
  "prenotazione.scoperta": "prenotazione scoperta da un fatto (inventario, annullamento, quarantena)",
};

export const STATE_LABEL: Record<DeliveryState, string> = { in_attesa: "in attesa", consegnata: "consegnata", fallita: "fallita" };
export const STATE_COLOR: Record<DeliveryState, string> = { in_attesa: "yellow", consegnata: "green", fallita: "red" };

/** The outcome of an attempt (delivery.ts), in words. */
const OUTCOME_LABEL: Record<string, string> = {
  consegnato: "consegnato",
  rifiutato: "rifiutato",
  timeout: "nessuna risposta in tempo",
  errore_rete: "errore di rete",
  rete_privata: "indirizzo di rete privata",
};

export const outcome = (stato_http: number | null, esito: string) =>
  `${stato_http === null ? "" : `HTTP ${stato_http} · `}${OUTCOME_LABEL[esito] ?? esito}`;

export function fail(e: unknown) {
  notifications.show({ color: "red", title: "Operazione rifiutata", message: describeError(e).messaggio, autoClose: 8000 });
}

/** The first kilobyte of a receiver's answer, as it came: monospaced, wrapped, scrolling when long. */
export function Answer({ text, testid }: { text: string; testid?: string }) {
  return (
    <Code
      block
      data-testid={testid}
      style={{ maxHeight: "7.5em", overflow: "auto", whiteSpace: "pre-wrap", overflowWrap: "anywhere", fontSize: "0.8rem" }}
    >
      {text}
    </Code>
  );
}

type Trpc = ReturnType<typeof useTRPC>;

/** After a write: the list, the details, and the administrative log (each write is in it). */
export function refreshAll(queryClient: ReturnType<typeof useQueryClient>, trpc: Trpc) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.webhooks.attempts.pathKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.audit.list.pathKey() }),
  ]);
}
