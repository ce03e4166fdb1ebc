"use client";
import { Stack, Text, Title } from "@mantine/core";
import { memo } from "react";
import { count, instant } from "../../format";
import type { QueuedPallet } from "./pallet-copy";
import { QueuedCard } from "./queued-card";

const NOTES = {
  in_coda: "Sarà ricevuto appena il servizio risponde, una volta sola.",
  incerto: "Inviato senza risposta: sarà verificato, e ricevuto una volta sola.",
  da_decidere: "In coda da più di 20 ore: controllare nella pagina Avvisi se il collo risulta ricevuto, poi inviarlo o scartarlo.",
};

/**
 * The pallet receipts the handheld holds for the service (confirmed offline), each with what happens next;
 * a refused one, or one too old to trust its key, is decided here (send again under a new key, or discard).
 */
export const QueuedPallets = memo(function QueuedPallets({
  items,
  onDiscard,
  onSendAgain,
}: {
  items: QueuedPallet[];
  onDiscard: (q: QueuedPallet) => void;
  onSendAgain: (q: QueuedPallet) => void;
}) {
  if (items.length === 0) return null;
  return (
    <Stack gap="xs" data-testid="colli-da-inviare">
      <Title order={4}>Colli da inviare ({items.length})</Title>
      {items.map((q) => (
        <QueuedCard
          key={q.id}
          item={q}
          notes={NOTES}
          testId={`coda-collo-${q.richiesta.sscc}`}
          heading={
            <>
              <Text fw={700} style={{ overflowWrap: "anywhere" }}>
                Collo {q.richiesta.sscc}
              </Text>
              <Text size="xs" c="dimmed">
                {instant(new Date(q.il).toISOString())} · avviso {q.avviso} · {count(q.righe, "riga", "righe")} · DDT {q.richiesta.ddt}
              </Text>
            </>
          }
          onSendAgain={() => onSendAgain(q)}
          onDiscard={() => onDiscard(q)}
        />
      ))}
    </Stack>
  );
});
