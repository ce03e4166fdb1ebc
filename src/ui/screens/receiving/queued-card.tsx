"use client";
import { Badge, Button, Card, Group, Text } from "@mantine/core";
import type { ReactNode } from "react";
import type { QueueItem, QueueState } from "./arrival-queue";

const BADGE: Record<QueueState, { label: string; color: string }> = {
  in_coda: { label: "In coda", color: "indigo" },
  incerto: { label: "Da verificare", color: "orange" },
  rifiutato: { label: "Rifiutato", color: "red" },
  da_decidere: { label: "Da decidere", color: "red" },
};

/**
 * One write the handheld holds for the service (an arrival, a pallet receipt), as the receiving bay lists
 * them: what it is, its state, and what happens next (the queue's own words) or, refused, the service's
 * reason. A refused one, or one too old to trust its key, waits for the operator: send it again (under a new
 * key) or discard it, with one large button each for a gloved hand.
 */
export function QueuedCard({
  item,
  notes,
  heading,
  testId,
  sendTestId,
  discardTestId,
  beforeDecision,
  onSendAgain,
  onDiscard,
}: {
  item: QueueItem;
  /** What happens next in each state but a refusal, which shows the service's message instead. */
  notes: Record<Exclude<QueueState, "rifiutato">, string>;
  /** What was queued: the left column beside the state's badge. */
  heading: ReactNode;
  testId: string;
  sendTestId?: string;
  discardTestId?: string;
  /** Shown above the buttons while the item waits for a decision: what the operator decides on. */
  beforeDecision?: ReactNode;
  onSendAgain: () => void;
  onDiscard: () => void;
}) {
  const badge = BADGE[item.stato];
  const decide = item.stato === "rifiutato" || item.stato === "da_decidere";
  return (
    <Card withBorder padding="sm" data-testid={testId} data-stato={item.stato}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div style={{ minWidth: 0 }}>{heading}</div>
        <Badge color={badge.color} style={{ flexShrink: 0 }}>
          {badge.label}
        </Badge>
      </Group>
      <Text size="sm" mt={4}>
        {item.stato === "rifiutato" ? item.errore?.messaggio : notes[item.stato]}
      </Text>
      {decide && beforeDecision}
      {decide && (
        <Group grow mt="xs">
          <Button size="md" variant="light" onClick={onSendAgain} data-testid={sendTestId}>
            Invia
          </Button>
          <Button size="md" color="red" variant="light" onClick={onDiscard} data-testid={discardTestId}>
            Scarta
          </Button>
        </Group>
      )}
    </Card>
  );
}
