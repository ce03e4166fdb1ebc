"use client";
import { Alert, Group, Text } from "@mantine/core";
import { useOnline } from "./network";
import { useWaitingTotal } from "./waiting";

/**
 * At the top of every screen: says the handheld cannot reach the service, and how many items wait to be
 * sent (setWaitingCount). Online with items still waiting (a queue being sent), it says that instead.
 */
export function OfflineBanner() {
  const online = useOnline();
  const waiting = useWaitingTotal();
  if (online && waiting === 0) return null;
  return (
    <Alert
      data-testid="banner-offline"
      color={online ? "blue" : "orange"}
      variant={online ? "light" : "filled"}
      radius="sm"
      py={6}
      px="sm"
      mb="sm"
      className="no-print"
    >
      <Group gap="xs" justify="space-between" wrap="wrap">
        <Text size="sm" fw={700} c="inherit">
          {online ? "Dati non ancora inviati al servizio" : "Offline: il servizio non è raggiungibile"}
        </Text>
        {waiting > 0 && (
          <Text size="sm" fw={700} c="inherit" data-testid="in-attesa">
            {waiting} in attesa di invio
          </Text>
        )}
      </Group>
    </Alert>
  );
}
