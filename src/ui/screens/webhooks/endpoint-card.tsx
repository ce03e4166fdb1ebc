"use client";
import { Alert, Badge, Button, Group, Modal, Paper, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { EventType } from "@/lib/domain-lists";
import type { EndpointOutput } from "@/server/modules/webhooks/webhooks.schemas";
import { describeError } from "../../errors";
import { instant, instantToSecond } from "../../format";
import { useTRPC } from "../../trpc";
import { Attempts } from "./attempts";
import { Deliveries } from "./deliveries";
import { Answer, EVENT_LABEL, fail, outcome, refreshAll } from "./shared";

function Figure({ label, value, testid, color }: { label: string; value: string; testid?: string; color?: string }) {
  return (
    <div style={{ minWidth: 0 }}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} c={color} data-testid={testid}>
        {value}
      </Text>
    </div>
  );
}

/** One endpoint: its figures and last failure; disable or enable it, replay from a sequence, open its deliveries and attempts. */
export function EndpointCard({ endpoint: e }: { endpoint: EndpointOutput }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settingActive = useMutation(trpc.webhooks.setActive.mutationOptions());
  const replaying = useMutation(trpc.webhooks.replay.mutationOptions());
  const [open, setOpen] = useState(false);
  const [replayOpen, setReplayOpen] = useState(false);
  const [replayError, setReplayError] = useState<string | null>(null);
  const replayForm = useForm({
    initialValues: { da: "" },
    validate: {
      da: (v) => (/^\d+$/.test(v.trim()) && Number(v) > 0 && Number(v) <= 2_147_483_647 ? null : "Un numero intero maggiore di zero"),
    },
  });

  async function toggle() {
    try {
      await settingActive.mutateAsync({ id: e.id, attivo: !e.attivo });
      notifications.show({
        color: "green",
        message: e.attivo
          ? "Webhook disattivato: nessuna consegna finché non viene riattivato; gli eventi intanto si accumulano."
          : "Webhook riattivato: le consegne riprendono da dove si erano fermate.",
      });
      await refreshAll(queryClient, trpc);
    } catch (err) {
      fail(err);
    }
  }

  async function replay() {
    setReplayError(null);
    if (replayForm.validate().hasErrors) return;
    const da = Number(replayForm.getValues().da.trim());
    try {
      const { riaccodate } = await replaying.mutateAsync({ id: e.id, da });
      notifications.show({
        color: "green",
        message:
          riaccodate === 0
            ? `Nessun evento da riconsegnare dalla sequenza ${da}.`
            : `${riaccodate} ${riaccodate === 1 ? "evento sarà riconsegnato" : "eventi saranno riconsegnati"} dalla sequenza ${da}, in ordine.`,
      });
      setReplayOpen(false);
      replayForm.reset();
      await refreshAll(queryClient, trpc);
    } catch (err) {
      setReplayError(describeError(err).messaggio);
    }
  }

  const failure = e.ultimo_errore;
  // A failure followed by a success is history, not an alarm.
  const recovered = failure !== null && e.ultimo_successo !== null && Date.parse(e.ultimo_successo) > Date.parse(failure.il);
  return (
    <Paper withBorder p="sm" data-testid={`webhook-${e.id}`}>
      <Stack gap={4}>
        <Group gap="xs" wrap="wrap">
          <Badge color={e.attivo ? "green" : "gray"} data-testid="stato-webhook">
            {e.attivo ? "attivo" : "disattivato"}
          </Badge>
          <Text size="xs" c="dimmed">
            n. {e.id} · creato il {instant(e.creato_il)}
          </Text>
        </Group>
        <Text fw={700} size="lg" style={{ overflowWrap: "anywhere" }} data-testid="url-webhook">
          {e.url}
        </Text>
        {e.descrizione && <Text size="sm">{e.descrizione}</Text>}
        <Group gap={4} wrap="wrap">
          {e.eventi.map((t) => (
            <Badge key={t} variant="light" color="indigo" tt="none" size="md" title={EVENT_LABEL[t as EventType] ?? t}>
              {t}
            </Badge>
          ))}
        </Group>
      </Stack>
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="xs" verticalSpacing={6} mt="sm">
        <Figure label="In attesa" value={String(e.in_attesa)} testid="in-attesa" />
        <Figure label="Fallite" value={String(e.fallite)} testid="fallite" color={e.fallite > 0 ? "red.8" : undefined} />
        <Figure label="Ultimo successo" value={instant(e.ultimo_successo)} testid="ultimo-successo" />
        <Figure
          label="Ultimo errore"
          value={failure ? instant(failure.il) : "—"}
          testid="ultimo-errore-il"
          color={failure && !recovered ? "red.8" : undefined}
        />
      </SimpleGrid>
      {failure && (
        <Alert color={recovered ? "gray" : "red"} variant="light" p="xs" mt="xs" data-testid="ultimo-errore">
          <Stack gap={4}>
            <Text size="sm" fw={600}>
              Ultimo errore, {instantToSecond(failure.il)}: {outcome(failure.stato_http, failure.esito)}
              {recovered ? " (seguito da una consegna riuscita)" : ""}
            </Text>
            {failure.risposta ? (
              <Answer text={failure.risposta} />
            ) : (
              <Text size="xs" c="dimmed">
                Nessuna risposta.
              </Text>
            )}
          </Stack>
        </Alert>
      )}
      <Group gap="xs" mt="sm" justify="flex-end">
        <Button
          size="sm"
          variant="light"
          color={e.attivo ? "red" : "green"}
          w={{ base: "100%", xs: "auto" }}
          loading={settingActive.isPending}
          onClick={() => void toggle()}
          data-testid="attiva-webhook"
        >
          {e.attivo ? "Disattiva" : "Riattiva"}
        </Button>
        <Button
          size="sm"
          variant="default"
          w={{ base: "100%", xs: "auto" }}
          onClick={() => setReplayOpen(true)}
          data-testid="riconsegna-da"
        >
          Riconsegna dalla sequenza…
        </Button>
        <Button
          size="sm"
          variant={open ? "filled" : "default"}
          w={{ base: "100%", xs: "auto" }}
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          data-testid="dettagli-webhook"
        >
          {open ? "Nascondi consegne" : "Consegne e tentativi"}
        </Button>
      </Group>
      {open && <EndpointDetail id={e.id} />}

      <Modal opened={replayOpen} onClose={() => setReplayOpen(false)} title="Riconsegna dalla sequenza" centered>
        <Stack>
          <Text size="sm" style={{ overflowWrap: "anywhere" }}>
            Gli eventi dei tipi di <b>{e.url}</b> dalla sequenza indicata (inclusa) vengono consegnati di nuovo, in ordine: anche quelli già
            consegnati. La sequenza è il numero dell&apos;evento, nella colonna «Evento» delle consegne.
          </Text>
          <TextInput
            label="Dalla sequenza"
            inputMode="numeric"
            {...replayForm.getInputProps("da")}
            data-testid="campo-sequenza"
            onKeyDown={(k) => k.key === "Enter" && void replay()}
          />
          {replayError && <Alert color="red">{replayError}</Alert>}
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
            <Button variant="default" onClick={() => setReplayOpen(false)} fullWidth>
              Annulla
            </Button>
            <Button onClick={() => void replay()} loading={replaying.isPending} fullWidth data-testid="conferma-riconsegna">
              Riconsegna
            </Button>
          </SimpleGrid>
        </Stack>
      </Modal>
    </Paper>
  );
}

function EndpointDetail({ id }: { id: number }) {
  return (
    <Stack gap="md" mt="md" data-testid={`dettaglio-webhook-${id}`}>
      <Deliveries id={id} />
      <Attempts id={id} />
    </Stack>
  );
}
