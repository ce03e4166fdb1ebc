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
import { lagText, MODE_LABEL, rateText, SettingsForm } from "./settings";
import { Answer, EVENT_LABEL, fail, outcome, refreshAll } from "./shared";

const CREATOR_LABEL = { utente: "utente", chiave: "chiave API", riga_di_comando: "riga di comando" } as const;

/** A lag past this many seconds is shown as a warning: the receiver is not keeping up. */
const LAG_WARNING_S = 30;

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

/**
 * One endpoint: its figures (lag, rate, settings) and last failure; change its settings, disable or enable it,
 * replay from a sequence (the range skipped after 7 days disabled, when there is one), delete it, open its
 * deliveries and attempts.
 */
export function EndpointCard({ endpoint: e }: { endpoint: EndpointOutput }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const settingActive = useMutation(trpc.webhooks.setActive.mutationOptions());
  const replaying = useMutation(trpc.webhooks.replay.mutationOptions());
  const removing = useMutation(trpc.webhooks.remove.mutationOptions());
  const [open, setOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [removeOpen, setRemoveOpen] = useState(false);
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
          ? "Webhook disattivato: nessuna consegna finché non viene riattivato. Dopo 7 giorni la riattivazione riparte dagli eventi nuovi."
          : "Webhook riattivato: le consegne riprendono.",
      });
      await refreshAll(queryClient, trpc);
    } catch (err) {
      fail(err);
    }
  }

  async function remove() {
    try {
      const { consegne_scartate } = await removing.mutateAsync({ id: e.id });
      notifications.show({ color: "green", message: `Webhook eliminato: ${consegne_scartate} consegne in attesa scartate.` });
      setRemoveOpen(false);
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
          <Text size="xs" c="dimmed" data-testid="creato-da">
            n. {e.id} · creato il {instant(e.creato_il)}
            {e.creato_da ? ` da ${CREATOR_LABEL[e.creato_da.tipo]} ${e.creato_da.tipo === "riga_di_comando" ? "" : e.creato_da.nome}` : ""}
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
        <Figure
          label="Ritardo"
          value={lagText(e.ritardo_s)}
          testid="ritardo"
          color={e.ritardo_s !== null && e.ritardo_s > LAG_WARNING_S ? "orange.8" : undefined}
        />
        <Figure label="Ritmo" value={rateText(e.eventi_al_secondo)} testid="ritmo" />
        <Figure label="Eventi per richiesta" value={String(e.eventi_per_richiesta)} testid="per-richiesta" />
        <Figure label="Consegna" value={MODE_LABEL[e.consegna]} testid="consegna" />
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
      {e.salto && (
        <Alert color="yellow" variant="light" p="xs" mt="xs" data-testid="salto">
          <Text size="sm">
            Rimasto disattivato più di 7 giorni: le sequenze da {e.salto.da} a {e.salto.a} non sono state consegnate. «Riconsegna dalla
            sequenza…» con {e.salto.da} le consegna.
          </Text>
        </Alert>
      )}
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
          variant="default"
          w={{ base: "100%", xs: "auto" }}
          onClick={() => setSettingsOpen(true)}
          data-testid="impostazioni-webhook"
        >
          Impostazioni…
        </Button>
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
          onClick={() => {
            // The skipped range is what there is to fill: its start, proposed.
            if (e.salto && replayForm.getValues().da === "") replayForm.setFieldValue("da", String(e.salto.da));
            setReplayOpen(true);
          }}
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
        <Button
          size="sm"
          variant="subtle"
          color="red"
          w={{ base: "100%", xs: "auto" }}
          onClick={() => setRemoveOpen(true)}
          data-testid="elimina-webhook"
        >
          Elimina…
        </Button>
      </Group>
      {open && <EndpointDetail id={e.id} />}

      <Modal opened={settingsOpen} onClose={() => setSettingsOpen(false)} title="Impostazioni di consegna" centered>
        {settingsOpen && <SettingsForm endpoint={e} onDone={() => setSettingsOpen(false)} />}
      </Modal>
      <Modal opened={removeOpen} onClose={() => setRemoveOpen(false)} title="Eliminare il webhook?" centered>
        <Stack>
          <Text size="sm" style={{ overflowWrap: "anywhere" }}>
            <b>{e.url}</b> non riceverà più nulla e le sue {e.in_attesa} consegne in attesa saranno scartate. Il registro amministrativo
            conserva l&apos;eliminazione.
          </Text>
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
            <Button variant="default" onClick={() => setRemoveOpen(false)} fullWidth>
              Annulla
            </Button>
            <Button color="red" onClick={() => void remove()} loading={removing.isPending} fullWidth data-testid="conferma-eliminazione">
              Elimina
            </Button>
          </SimpleGrid>
        </Stack>
      </Modal>
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
