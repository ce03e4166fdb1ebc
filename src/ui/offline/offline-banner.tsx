"use client";
import { Alert, Group, Text } from "@mantine/core";
import { useOnline } from "./network";
import { useQueuedElsewhere } from "./use-queued-elsewhere";
import { useWaitingTotal } from "./waiting";

/**
 * At the top of every screen: says the handheld cannot reach the service, and how many items wait to be
 * sent (setWaitingCount), those of queues whose screen is not open here included (useQueuedElsewhere), with
 * the screen that sends them. Online with items still waiting (a queue being sent), it says that instead.
 */
export function OfflineBanner() {
  const online = useOnline();
  const elsewhere = useQueuedElsewhere();
  const waiting = useWaitingTotal() + elsewhere.count;
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
        {elsewhere.count > 0 && (
          <Text size="sm" c="inherit" w="100%" data-testid="in-attesa-altrove">
            {elsewhere.count} da inviare dalla schermata {elsewhere.screens.join(" e ")}: si inviano aprendola con la rete.
          </Text>
        )}
      </Group>
    </Alert>
  );
}
