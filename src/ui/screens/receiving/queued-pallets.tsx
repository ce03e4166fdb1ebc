"use client";
import { Badge, Button, Card, Group, Stack, Text, Title } from "@mantine/core";
import { memo } from "react";
import type { QueueState } from "../../offline/device-queue";
import { instant } from "../../format";
import type { QueuedPallet } from "./pallet-copy";

const STATE: Record<QueueState, { label: string; color: string; note: string }> = {
  in_coda: { label: "In coda", color: "indigo", note: "Sarà ricevuto appena il servizio risponde, una volta sola." },
  incerto: { label: "Da verificare", color: "orange", note: "Inviato senza risposta: sarà verificato, e ricevuto una volta sola." },
  rifiutato: { label: "Rifiutato", color: "red", note: "" },
  da_decidere: {
    label: "Da decidere",
    color: "red",
    note: "In coda da più di 20 ore: controllare nella pagina Avvisi se il collo risulta ricevuto, poi inviarlo o scartarlo.",
  },
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
      {items.map((q) => {
        const s = STATE[q.stato];
        const decide = q.stato === "rifiutato" || q.stato === "da_decidere";
        return (
          <Card key={q.id} withBorder padding="sm" data-testid={`coda-collo-${q.richiesta.sscc}`} data-stato={q.stato}>
            <Group justify="space-between" wrap="nowrap" align="flex-start">
              <div style={{ minWidth: 0 }}>
                <Text fw={700} style={{ overflowWrap: "anywhere" }}>
                  Collo {q.richiesta.sscc}
                </Text>
                <Text size="xs" c="dimmed">
                  {instant(new Date(q.il).toISOString())} · avviso {q.avviso} · {q.righe} righe · DDT {q.richiesta.ddt}
                </Text>
              </div>
              <Badge color={s.color} style={{ flexShrink: 0 }}>
                {s.label}
              </Badge>
            </Group>
            <Text size="sm" mt={4}>
              {q.stato === "rifiutato" ? q.errore?.messaggio : s.note}
            </Text>
            {decide && (
              <Group grow mt="xs">
                <Button size="md" variant="light" onClick={() => onSendAgain(q)}>
                  Invia
                </Button>
                <Button size="md" color="red" variant="light" onClick={() => onDiscard(q)}>
                  Scarta
                </Button>
              </Group>
            )}
          </Card>
        );
      })}
    </Stack>
  );
});
