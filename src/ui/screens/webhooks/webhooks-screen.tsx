"use client";
import { Alert, Button, Checkbox, Group, Modal, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { EVENT_TYPES, type EventType } from "@/lib/domain-lists";
import { describeError } from "../../errors";
import { SecretShown } from "../../secret-shown";
import { useTRPC } from "../../trpc";
import { EndpointCard } from "./endpoint-card";
import { THROUGHPUT_DEFAULTS, ThroughputFields, type ThroughputValues, validatePerRequest } from "./settings";
import { EVENT_LABEL, refreshAll } from "./shared";

/**
 * Webhook endpoints (docs/api.md section 10), for administrators: every endpoint, whoever made it (the screen, the
 * command line, an API key by REST). Create one with its throughput settings (its secret shown once), and for
 * each the state of its deliveries (pending, failed, lag, rate, last success, last failure with the receiver's
 * answer); change its settings, disable and enable it, replay from a sequence, delete it, and below it its
 * deliveries (a failed one sent again) and attempts.
 */
export function WebhooksScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Deliveries happen in the background: the figures follow without reloading.
  const list = useQuery(trpc.webhooks.list.queryOptions(undefined, { refetchInterval: 5_000 }));
  const creatingEndpoint = useMutation(trpc.webhooks.create.mutationOptions());
  const [creating, setCreating] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ url: string; segreto: string } | null>(null);
  const form = useForm<{ url: string; eventi: EventType[]; descrizione: string } & ThroughputValues>({
    initialValues: { url: "", eventi: [], descrizione: "", ...THROUGHPUT_DEFAULTS },
    validate: {
      url: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? null : "Un indirizzo che inizia con http:// o https://"),
      eventi: (v) => (v.length === 0 ? "Scegliere almeno un tipo di evento" : null),
      eventi_per_richiesta: validatePerRequest,
    },
  });

  async function create() {
    setFormError(null);
    if (form.validate().hasErrors) return;
    const { url, eventi, descrizione, eventi_per_richiesta, consegna } = form.getValues();
    try {
      const out = await creatingEndpoint.mutateAsync({
        url: url.trim(),
        eventi,
        eventi_per_richiesta: Number(eventi_per_richiesta),
        consegna,
        ...(descrizione.trim() ? { descrizione } : {}),
      });
      setCreating(false);
      form.reset();
      setShown({ url: out.endpoint.url, segreto: out.segreto });
      await refreshAll(queryClient, trpc);
    } catch (e) {
      setFormError(describeError(e).messaggio);
    }
  }

  const endpoints = list.data?.endpoint ?? [];
  return (
    <Stack gap="md" maw={1100}>
      <Group justify="space-between">
        <Title order={2}>Webhook</Title>
        <Button onClick={() => setCreating(true)} data-testid="nuovo-webhook">
          Nuovo webhook
        </Button>
      </Group>
      <Text c="dimmed" size="sm">
        Un webhook invia gli eventi scelti a un sistema esterno, firmati secondo Standard Webhooks. Un invio non riuscito si ripete per
        almeno 30 ore, poi la consegna risulta fallita e si può riconsegnare da qui. Il segreto per verificare le firme si vede una sola
        volta, alla creazione. Qui compaiono tutti i webhook, anche quelli creati dai gestionali con la propria chiave API. Ritardo: da
        quanto aspetta il più vecchio evento non ancora consegnato; ritmo: gli eventi consegnati nell&apos;ultimo minuto.
      </Text>
      {list.error && <Alert color="red">{describeError(list.error).messaggio}</Alert>}
      {list.isSuccess && endpoints.length === 0 && <Text c="dimmed">Nessun webhook registrato.</Text>}
      <Stack gap="sm" data-testid="elenco-webhook">
        {endpoints.map((e) => (
          <EndpointCard key={e.id} endpoint={e} />
        ))}
      </Stack>

      <Modal opened={creating} onClose={() => setCreating(false)} title="Nuovo webhook" centered size="lg">
        <Stack>
          <TextInput
            label="Indirizzo"
            description="http:// o https://; le reti private e locali sono rifiutate salvo configurazione del servizio"
            placeholder="https://erp.example.com/banchina/eventi"
            inputMode="url"
            autoCapitalize="none"
            {...form.getInputProps("url")}
            data-testid="campo-url-webhook"
          />
          <Checkbox.Group label="Eventi da inviare" {...form.getInputProps("eventi")} data-testid="campo-eventi-webhook">
            <Stack gap={6} mt={6}>
              {EVENT_TYPES.map((t) => (
                <Checkbox
                  key={t}
                  value={t}
                  label={
                    <>
                      <Text span size="sm" ff="monospace">
                        {t}
                      </Text>
                      <Text span size="sm" c="dimmed">
                        {" "}
                        — {EVENT_LABEL[t]}
                      </Text>
                    </>
                  }
                />
              ))}
            </Stack>
          </Checkbox.Group>
          <TextInput
            label="Descrizione (facoltativa)"
            description="Chi lo riceve, per esempio il gestionale"
            maxLength={200}
            {...form.getInputProps("descrizione")}
            data-testid="campo-descrizione-webhook"
          />
          <ThroughputFields perRequest={form.getInputProps("eventi_per_richiesta")} mode={form.getInputProps("consegna")} />
          {formError && (
            <Alert color="red" data-testid="errore-webhook">
              {formError}
            </Alert>
          )}
          <Button onClick={() => void create()} loading={creatingEndpoint.isPending} data-testid="crea-webhook">
            Crea
          </Button>
        </Stack>
      </Modal>
      <Modal opened={shown !== null} onClose={() => setShown(null)} title="Webhook creato" centered size="lg">
        <Stack>
          <Text size="sm" style={{ overflowWrap: "anywhere" }}>
            Segreto per verificare le firme delle consegne a <b>{shown?.url}</b>:
          </Text>
          <Alert color="yellow">È mostrato solo ora e non si può recuperare: copiarlo e conservarlo in un luogo sicuro.</Alert>
          <SecretShown value={shown?.segreto ?? ""} testId="segreto-creato" noun="segreto" />
        </Stack>
      </Modal>
    </Stack>
  );
}
