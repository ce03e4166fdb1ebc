"use client";
import { Stack, Text, Title } from "@mantine/core";
import { memo, useEffect, useState } from "react";
import { day, instant, qty } from "../../format";
import { useMutationCall } from "../../hooks";
import { useTRPC } from "../../trpc";
import type { QueuedArrival } from "./arrival-queue";
import type { ExpectedCopy } from "./local-lookup";
import { QueuedCard } from "./queued-card";

const NOTES = {
  in_coda: "Sarà inviato appena il servizio risponde.",
  incerto: "Inviato senza risposta: sarà verificato, e registrato una volta sola.",
  da_decidere:
    "In coda da più di 20 ore: il servizio potrebbe averne dimenticato la chiave. Controllare gli arrivi della riga, poi inviarlo o scartarlo.",
};

/**
 * The row's arrivals as the service has them, beside an arrival held for a decision: whether it is already
 * there is what the operator decides on.
 */
function RowArrivals({ etichetta }: { etichetta: string }) {
  const trpc = useTRPC();
  const scan = useMutationCall(trpc.arrivals.scan.mutationOptions());
  const [text, setText] = useState(`Arrivi della riga ${etichetta}: lettura…`);
  useEffect(() => {
    let live = true;
    scan({ barcode: etichetta })
      .then((res) => {
        const row = res.ordini[0]?.righe[0];
        if (!live) return;
        if (!row) return setText(`Riga ${etichetta}: ${(res.motivo ?? "non più attesa").replace(/\.?$/, ".")}`);
        const list = row.registrati.map((a) => `${qty(a.quantita)} il ${day(a.data)}`).join(", ");
        setText(
          `Arrivi della riga ${etichetta} secondo il servizio: ${list || "nessuno"} (arrivata ${qty(row.arrivata)} di ${qty(row.ordinata)}, residua ${qty(row.residua)}).`,
        );
      })
      .catch(() => live && setText("Arrivi della riga: il servizio non risponde."));
    return () => {
      live = false;
    };
  }, [etichetta, scan]);
  return (
    <Text size="sm" c="dimmed" data-testid={`coda-arrivi-${etichetta}`}>
      {text}
    </Text>
  );
}

const Item = memo(function Item({
  q,
  onDiscard,
  onSendAgain,
}: {
  q: QueuedArrival;
  onDiscard: (q: QueuedArrival) => void;
  onSendAgain: (q: QueuedArrival) => void;
}) {
  return (
    <QueuedCard
      item={q}
      notes={NOTES}
      testId={`coda-${q.richiesta.riga}`}
      sendTestId={`coda-invia-${q.richiesta.riga}`}
      discardTestId={`coda-scarta-${q.richiesta.riga}`}
      heading={
        <>
          <Text fw={700}>
            {qty(q.richiesta.quantita)} × {q.codice}
          </Text>
          <Text size="xs" c="dimmed">
            {instant(new Date(q.il).toISOString())} · {q.etichetta} · {q.ordine} · DDT {q.richiesta.ddt}
            {q.richiesta.lotto ? ` · lotto ${q.richiesta.lotto}` : ""}
          </Text>
        </>
      }
      beforeDecision={<RowArrivals etichetta={q.etichetta} />}
      onSendAgain={() => onSendAgain(q)}
      onDiscard={() => onDiscard(q)}
    />
  );
});

/**
 * What the handheld holds for the service: arrivals confirmed offline or without an answer, and those the
 * service refused when they were sent, each with what happens next; and the age of the local copy of the
 * expected rows that scans are read from while offline. A refused arrival is decided here, beside today's
 * arrivals of its row in the list below (the service's own).
 */
export const QueuedArrivals = memo(function QueuedArrivals({
  items,
  online,
  copy,
  onDiscard,
  onSendAgain,
}: {
  items: QueuedArrival[];
  online: boolean;
  copy: ExpectedCopy | null;
  onDiscard: (q: QueuedArrival) => void;
  onSendAgain: (q: QueuedArrival) => void;
}) {
  return (
    <Stack gap="xs" data-testid="da-inviare" data-copia-righe={copy?.righe.length ?? 0}>
      {items.length > 0 && (
        <>
          <Title order={4}>Da inviare ({items.length})</Title>
          {items.map((q) => (
            <Item key={q.id} q={q} onDiscard={onDiscard} onSendAgain={onSendAgain} />
          ))}
        </>
      )}
      {(!online || items.length > 0) && (
        <Text size="xs" c="dimmed" data-testid="copia-locale">
          {copy
            ? `Righe attese sul palmare: ${copy.righe.length}, aggiornate alle ${instant(copy.al)}.`
            : "Nessuna copia delle righe attese sul palmare per questo magazzino."}
        </Text>
      )}
    </Stack>
  );
});
