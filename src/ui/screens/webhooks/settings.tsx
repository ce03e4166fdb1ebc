"use client";
import { Alert, Button, NumberInput, Radio, SimpleGrid, Stack, Text } from "@mantine/core";
import { type GetInputPropsReturnType, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { DeliveryMode, EndpointOutput } from "@/server/modules/webhooks/webhooks.schemas";
import { describeError } from "../../errors";
import { useTRPC } from "../../trpc";
import { refreshAll } from "./shared";

/* An endpoint's throughput settings (docs/api.md section 10, "Throughput"): on creation and afterwards. */

export interface ThroughputValues {
  eventi_per_richiesta: number | string;
  consegna: DeliveryMode;
}

export const THROUGHPUT_DEFAULTS: ThroughputValues = { eventi_per_richiesta: 1, consegna: "ordinata" };

export const validatePerRequest = (v: number | string) =>
  typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= 100 ? null : "Un numero intero da 1 a 100";

export const MODE_LABEL: Record<DeliveryMode, string> = { ordinata: "ordinata", parallela: "parallela" };

/** The two fields, for the creation form and the settings dialog. */
export function ThroughputFields({ perRequest, mode }: { perRequest: GetInputPropsReturnType; mode: GetInputPropsReturnType }) {
  return (
    <>
      <NumberInput
        label="Eventi per richiesta"
        description="1: ogni richiesta porta un evento. Da 2 a 100: un lotto { “eventi”: […] } in ordine di sequenza, per un ricevente lento"
        min={1}
        max={100}
        allowDecimal={false}
        allowNegative={false}
        clampBehavior="none"
        inputMode="numeric"
        {...perRequest}
        data-testid="campo-per-richiesta"
      />
      <Radio.Group label="Consegna" {...mode} data-testid="campo-consegna">
        <Stack gap={6} mt={6}>
          <Radio value="ordinata" label="Ordinata: una richiesta alla volta, in ordine di sequenza" data-testid="consegna-ordinata" />
          <Radio
            value="parallela"
            label="Parallela: più richieste insieme, senza ordine (ogni evento porta la sua sequenza)"
            data-testid="consegna-parallela"
          />
        </Stack>
      </Radio.Group>
    </>
  );
}

/** The settings dialog of one endpoint: they apply to the batches not yet formed. */
export function SettingsForm({ endpoint: e, onDone }: { endpoint: EndpointOutput; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const updating = useMutation(trpc.webhooks.update.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  const form = useForm<ThroughputValues>({
    initialValues: { eventi_per_richiesta: e.eventi_per_richiesta, consegna: e.consegna },
    validate: { eventi_per_richiesta: validatePerRequest },
  });

  async function save() {
    setError(null);
    if (form.validate().hasErrors) return;
    const { eventi_per_richiesta, consegna } = form.getValues();
    try {
      await updating.mutateAsync({ id: e.id, eventi_per_richiesta: Number(eventi_per_richiesta), consegna });
      notifications.show({ color: "green", message: "Impostazioni salvate: valgono per i lotti non ancora formati." });
      await refreshAll(queryClient, trpc);
      onDone();
    } catch (err) {
      setError(describeError(err).messaggio);
    }
  }

  return (
    <Stack>
      <Text size="sm" style={{ overflowWrap: "anywhere" }}>
        Consegne a <b>{e.url}</b>. Un ricevente lento (100–300 ms a risposta) tiene il passo con più eventi per richiesta o con la consegna
        parallela.
      </Text>
      <ThroughputFields perRequest={form.getInputProps("eventi_per_richiesta")} mode={form.getInputProps("consegna")} />
      {error && <Alert color="red">{error}</Alert>}
      <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
        <Button variant="default" onClick={onDone} fullWidth>
          Annulla
        </Button>
        <Button onClick={() => void save()} loading={updating.isPending} fullWidth data-testid="salva-impostazioni">
          Salva
        </Button>
      </SimpleGrid>
    </Stack>
  );
}

/** "2 min 05 s": the age of the oldest event not yet delivered, for a person. */
export function lagText(seconds: number | null): string {
  if (seconds === null) return "nessuno in attesa";
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
  return `${Math.floor(s / 86_400)} g ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Events delivered over the last minute: per minute below one a second (where "0,02/s" would say little), else per second. */
export function rateText(perSecond: number): string {
  if (perSecond < 1) {
    const perMinute = Math.round(perSecond * 60);
    return `${perMinute} ${perMinute === 1 ? "evento" : "eventi"}/min`;
  }
  return `${perSecond.toLocaleString("it-IT", { maximumFractionDigits: 1 })} eventi/s`;
}
