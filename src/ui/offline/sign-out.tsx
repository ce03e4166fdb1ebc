"use client";
import { Button, Group, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { describeError } from "../errors";
import { forgetUserState } from "../hooks";
import type { UiUser } from "../session-context";
import { useTRPC } from "../trpc";
import { wipeUserData } from "./local-db";
import { useOnline } from "./network";
import { reasonsToWait } from "./sign-out-guards";
import { Modal } from "../lazy-modal";

/** The "no network, cannot sign out" notice: one at a time, gone when the network is back. */
const NO_NETWORK_NOTICE = "uscita-senza-rete";

export function SignOutButton({ user }: { user: UiUser }) {
  const trpc = useTRPC();
  const signOut = useMutation(trpc.session.signOut.mutationOptions());
  const [reason, setReason] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const online = useOnline();
  // Back on the network, the reason not to sign out is gone: so is its notice.
  useEffect(() => {
    if (online) notifications.hide(NO_NETWORK_NOTICE);
  }, [online]);

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
      // At the bottom: at the top of a handheld's screen it would cover Esci itself.
      notifications.show({
        id: NO_NETWORK_NOTICE,
        position: "bottom-center",
        color: "orange",
        message: "Senza rete non è possibile uscire: riprovare quando la rete torna.",
      });
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
