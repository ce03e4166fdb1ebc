"use client";
import { Button, Group, Modal, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { describeError } from "../errors";
import { forgetUserState } from "../hooks";
import type { UiUser } from "../session-context";
import { useTRPC } from "../trpc";
import { wipeUserData } from "./local-db";
import { reasonsToWait } from "./sign-out-guards";

export function SignOutButton({ user }: { user: UiUser }) {
  const trpc = useTRPC();
  const signOut = useMutation(trpc.session.signOut.mutationOptions());
  const [reason, setReason] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const leave = async () => {
    setReason(null);
    setBusy(true);
    try {
      await wipeUserData(user.id);
      // The screens' state kept for the user (useRemembered: DDT, warehouse) goes with the user.
      forgetUserState(user.id);
      try {
        await signOut.mutateAsync();
      } catch (e) {
        notifications.show({ color: "red", message: describeError(e).messaggio });
      }
      window.location.assign("/accesso");
    } finally {
      setBusy(false);
    }
  };

  const start = async () => {
    // The session ends on the service: without it, the next user would find this one still signed in.
    if (!navigator.onLine) {
      notifications.show({ color: "orange", message: "Senza rete non è possibile uscire: riprovare quando la rete torna." });
      return;
    }
    setBusy(true);
    const why = await reasonsToWait();
    setBusy(false);
    if (why) setReason(why);
    else await leave();
  };

  return (
    <>
      <Button variant="subtle" color="gray" size="sm" px="xs" style={{ flexShrink: 0 }} loading={busy} onClick={() => void start()}>
        Esci
      </Button>
      <Modal opened={reason !== null} onClose={() => setReason(null)} title="Uscire adesso?" centered>
        <Stack gap="md">
          <Text data-testid="motivo-attesa-uscita">{reason}</Text>
          <Text size="sm" c="dimmed">
            Uscendo, i dati non ancora inviati vengono cancellati da questo palmare e non saranno inviati.
          </Text>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setReason(null)}>
              Annulla
            </Button>
            <Button color="red" onClick={() => void leave()}>
              Esci comunque
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
