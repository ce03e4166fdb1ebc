"use client";
import { Group, Loader, Paper, Text } from "@mantine/core";
import { memo } from "react";
import type { Feedback } from "./use-receiving";

/** The outcome of the last scan or registration, big enough to read at arm's length; a refusal bigger still. */
export const FeedbackPanel = memo(function FeedbackPanel({ feedback }: { feedback: Feedback }) {
  const ko = feedback.outcome === "ko";
  return (
    <Paper
      p="md"
      radius="md"
      className={`feedback-${feedback.outcome}`}
      role={ko ? "alert" : "status"}
      data-testid="esito"
      data-esito={feedback.outcome}
    >
      <Text fw={800} size={ko ? "1.7rem" : "xl"} lh={1.2}>
        {feedback.title}
      </Text>
      {feedback.message && (
        <Text size={ko ? "xl" : "md"} mt={4} fw={ko ? 600 : 400}>
          {feedback.message}
        </Text>
      )}
    </Paper>
  );
});

/** Shown the moment a code is read, while the service looks it up: the code itself and a busy sign. */
export const ReadingPanel = memo(function ReadingPanel({ code }: { code: string }) {
  return (
    <Paper p="md" radius="md" className="feedback-busy" role="status" aria-busy data-testid="esito" data-esito="attesa">
      <Group gap="sm" wrap="nowrap" align="center">
        <Loader size="md" color="indigo" />
        <div style={{ minWidth: 0 }}>
          <Text fw={800} size="xl" lh={1.2}>
            Ricerca in corso…
          </Text>
          <Text size="md" mt={2} style={{ overflowWrap: "anywhere" }} data-testid="codice-in-lettura">
            Codice letto: <b>{code}</b>
          </Text>
        </div>
      </Group>
    </Paper>
  );
});
