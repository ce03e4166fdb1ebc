"use client";
import { Paper, Text } from "@mantine/core";
import type { Feedback } from "./use-receiving";

/** The outcome of the last scan or registration, big enough to read at arm's length; a refusal bigger still. */
export function FeedbackPanel({ feedback }: { feedback: Feedback }) {
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
}
