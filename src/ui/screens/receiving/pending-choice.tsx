"use client";
import { Button, Stack, Text } from "@mantine/core";
import { memo } from "react";
import type { PendingChoice } from "./use-receiving";
import { Modal } from "../../lazy-modal";

/**
 * A code read over a row that cannot be registered as it is: the screen stops here. Enter (the
 * scanner's too) answers the safe choice, completing the row; discarding it takes a tap on its own
 * button. The codes read meanwhile wait either way, and are read once the row is registered or discarded.
 * Memoised: closed, it has nothing to render again at every scan.
 */
export const PendingChoiceModal = memo(function PendingChoiceModal({
  choice,
  onComplete,
  onDiscard,
}: {
  choice: PendingChoice | null;
  onComplete: () => void;
  onDiscard: () => void;
}) {
  return (
    <Modal
      opened={choice !== null}
      onClose={onComplete}
      title="Riga non ancora registrata"
      centered
      size="md"
      returnFocus={false}
      data-testid="scelta-riga-in-sospeso"
      styles={{ title: { fontWeight: 800, fontSize: "1.3rem" } }}
    >
      {choice && (
        <Stack gap="md">
          <Text size="lg">
            <b>{choice.row.row.articolo.codice}</b> ({choice.row.row.etichetta}, ordine {choice.row.order.numero}) non è ancora registrato.
          </Text>
          <div>
            <Text size="lg" fw={800} c="red.8">
              {choice.problem.title}
            </Text>
            <Text size="md">{choice.problem.message}</Text>
          </div>
          <Text size="md" c="dimmed" style={{ overflowWrap: "anywhere" }}>
            {choice.codes.length === 1 ? "Letto nel frattempo" : "Letti nel frattempo"}: <b>{choice.codes.join(", ")}</b>,{" "}
            {choice.codes.length === 1 ? "mostrato" : "mostrati"} dopo questa riga.
          </Text>
          <Button
            size="lg"
            h="auto"
            py={12}
            fullWidth
            onClick={onComplete}
            data-autofocus
            data-testid="completa-riga"
            styles={{ label: { whiteSpace: "normal", textAlign: "center" } }}
          >
            Completa la riga · Invio
          </Button>
          <Button size="lg" fullWidth color="red" variant="light" onClick={onDiscard} data-testid="scarta-riga">
            Scarta la riga
          </Button>
        </Stack>
      )}
    </Modal>
  );
});
