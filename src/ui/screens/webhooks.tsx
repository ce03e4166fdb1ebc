"use client";
import {
  Alert,
  Badge,
  Box,
  Button,
  Checkbox,
  Code,
  Group,
  Modal,
  Paper,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import type { z } from "zod";
import { EVENT_TYPES, type EventType } from "@/lib/domain-lists";
import type { attemptOutput, deliveryOutput, EndpointOutput } from "@/server/modules/webhooks/webhooks.schemas";
import { DataTable } from "../data-table";
import { SecretShown } from "../secret-shown";
import { describeError } from "../errors";
import { instant } from "../format";
import { useTRPC } from "../trpc";

type Delivery = z.infer<typeof deliveryOutput>;
type Attempt = z.infer<typeof attemptOutput>;
type DeliveryState = Delivery["stato"];

/** What each event type tells, for the person choosing them. */
const EVENT_LABEL: Record<EventType, string> = {
  "movimenti.registrati": "movimenti registrati (carichi, scarichi, trasferimenti)",
  "arrivo.registrato": "arrivo registrato",
  "arrivo.annullato": "arrivo annullato",
  "giacenze.allineate": "giacenze allineate (inventario)",
  "documento_vendita.emesso": "documento di vendita emesso",
  "ordine_acquisto.modificato": "ordine d'acquisto nuovo o modificato",
  "articolo.modificato": "articolo nuovo o modificato",
  "cliente.modificato": "cliente nuovo o modificato",
  "fornitore.modificato": "fornitore nuovo o modificato",
};

const STATE_LABEL: Record<DeliveryState, string> = { in_attesa: "in attesa", consegnata: "consegnata", fallita: "fallita" };
const STATE_COLOR: Record<DeliveryState, string> = { in_attesa: "yellow", consegnata: "green", fallita: "red" };

/** The outcome of an attempt (delivery.ts), in words. */
const OUTCOME_LABEL: Record<string, string> = {
  consegnato: "consegnato",
  rifiutato: "rifiutato",
  timeout: "nessuna risposta in tempo",
  errore_rete: "errore di rete",
  rete_privata: "indirizzo di rete privata",
};

const outcome = (stato_http: number | null, esito: string) =>
  `${stato_http === null ? "" : `HTTP ${stato_http} · `}${OUTCOME_LABEL[esito] ?? esito}`;

/** Date and time to the second: attempts follow each other within seconds. */
function moment(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString("it-IT", { dateStyle: "short", timeStyle: "medium" });
}

function fail(e: unknown) {
  notifications.show({ color: "red", title: "Operazione rifiutata", message: describeError(e).messaggio, autoClose: 8000 });
}

/** The first kilobyte of a receiver's answer, as it came: monospaced, wrapped, scrolling when long. */
function Answer({ text, testid }: { text: string; testid?: string }) {
  return (
    <Code
      block
      data-testid={testid}
      style={{ maxHeight: "7.5em", overflow: "auto", whiteSpace: "pre-wrap", overflowWrap: "anywhere", fontSize: "0.8rem" }}
    >
      {text}
    </Code>
  );
}

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
 * Webhook endpoints (API.md section 10), for administrators: create one (its secret shown once), and for each
 * the state of its deliveries (pending, failed, last success, last failure with the receiver's answer); disable
 * and enable it, replay from a sequence, and below it its deliveries (a failed one sent again) and attempts.
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
  const form = useForm<{ url: string; eventi: EventType[]; descrizione: string }>({
    initialValues: { url: "", eventi: [], descrizione: "" },
    validate: {
      url: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? null : "Un indirizzo che inizia con http:// o https://"),
      eventi: (v) => (v.length === 0 ? "Scegliere almeno un tipo di evento" : null),
    },
  });

  async function create() {
    setFormError(null);
    if (form.validate().hasErrors) return;
    const { url, eventi, descrizione } = form.getValues();
    try {
      const out = await creatingEndpoint.mutateAsync({ url: url.trim(), eventi, ...(descrizione.trim() ? { descrizione } : {}) });
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
        volta, alla creazione.
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

type Trpc = ReturnType<typeof useTRPC>;

/** After a write: the list, the details, and the administrative log (each write is in it). */
function refreshAll(queryClient: ReturnType<typeof useQueryClient>, trpc: Trpc) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.webhooks.attempts.pathKey() }),
    queryClient.invalidateQueries({ queryKey: trpc.audit.list.pathKey() }),
  ]);
}

function EndpointCard({ endpoint: e }: { endpoint: EndpointOutput }) {
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
              Ultimo errore, {moment(failure.il)}: {outcome(failure.stato_http, failure.esito)}
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

/** Pages newest first: the bounds of the pages seen so far ([undefined] is the newest). */
function usePages() {
  const [pages, setPages] = useState<(number | undefined)[]>([undefined]);
  const prima = pages[pages.length - 1];
  return {
    bound: prima === undefined ? {} : { prima },
    first: pages.length === 1,
    newer: () => setPages(pages.slice(0, -1)),
    older: (next: number | null | undefined) => next && setPages([...pages, next]),
    reset: () => setPages([undefined]),
  };
}

function Pager({ pages, next }: { pages: ReturnType<typeof usePages>; next: number | null | undefined }) {
  if (pages.first && !next) return null;
  return (
    <Group gap="xs">
      <Button size="xs" variant="default" disabled={pages.first} onClick={pages.newer}>
        Più recenti
      </Button>
      <Button size="xs" variant="default" disabled={!next} onClick={() => pages.older(next)}>
        Meno recenti
      </Button>
    </Group>
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

type StateFilter = "tutte" | DeliveryState;

function Deliveries({ id }: { id: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [stato, setStato] = useState<StateFilter>("tutte");
  const pages = usePages();
  const query = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ id, ...(stato === "tutte" ? {} : { stato }), ...pages.bound }, { refetchInterval: 5_000 }),
    placeholderData: keepPreviousData,
  });
  const replaying = useMutation(trpc.webhooks.replayDelivery.mutationOptions());

  async function replay(d: Delivery) {
    try {
      await replaying.mutateAsync({ id, consegna: d.id });
      notifications.show({ color: "green", message: `L'evento ${d.sequenza} sarà consegnato di nuovo.` });
      await refreshAll(queryClient, trpc);
    } catch (e) {
      fail(e);
    }
  }

  const consegne = query.data?.consegne ?? [];
  return (
    <Stack gap="xs" data-testid="consegne-webhook">
      <Group justify="space-between" gap="xs">
        <Title order={4}>Consegne</Title>
        <SegmentedControl
          size="xs"
          value={stato}
          onChange={(v) => {
            setStato(v as StateFilter);
            pages.reset();
          }}
          data={[
            { value: "tutte", label: "Tutte" },
            { value: "in_attesa", label: "In attesa" },
            { value: "fallita", label: "Fallite" },
            { value: "consegnata", label: "Consegnate" },
          ]}
          data-testid="filtro-consegne"
        />
      </Group>
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      {query.isSuccess && consegne.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nessuna consegna{stato === "tutte" ? "" : ` ${STATE_LABEL[stato]}`}.
        </Text>
      ) : (
        <DataTable
          minWidth={300}
          verticalSpacing="xs"
          columns={[
            { label: "Evento" },
            { label: "Stato", visibleFrom: "sm" },
            { label: "Tentativi", num: true, visibleFrom: "sm" },
            { label: "Concluso / prossimo tentativo", visibleFrom: "sm" },
            { key: "azioni" },
          ]}
        >
          {consegne.map((d) => {
            const when = d.concluso_il ? instant(d.concluso_il) : d.prossimo_tentativo ? `prossimo ${instant(d.prossimo_tentativo)}` : "—";
            const state = (
              <Badge color={STATE_COLOR[d.stato]} variant="light" tt="none">
                {STATE_LABEL[d.stato]}
              </Badge>
            );
            return (
              <Table.Tr key={d.id} data-testid={`consegna-${d.sequenza}`}>
                <Table.Td>
                  {/* On a handheld one column: the sequence and the state, the type, then attempts and time. */}
                  <Group gap="xs" wrap="nowrap">
                    <Text size="sm" fw={700} className="num" ta="left">
                      {d.sequenza}
                    </Text>
                    <Box hiddenFrom="sm">{state}</Box>
                  </Group>
                  <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
                    {d.tipo}
                  </Text>
                  <Text size="xs" c="dimmed" hiddenFrom="sm">
                    {d.tentativi} {d.tentativi === 1 ? "tentativo" : "tentativi"} · {when}
                  </Text>
                </Table.Td>
                <Table.Td visibleFrom="sm">{state}</Table.Td>
                <Table.Td className="num" visibleFrom="sm">
                  {d.tentativi}
                </Table.Td>
                <Table.Td visibleFrom="sm">
                  <Text size="sm">{when}</Text>
                </Table.Td>
                <Table.Td ta="right">
                  {d.stato === "fallita" && (
                    <Button
                      size="xs"
                      variant="light"
                      onClick={() => void replay(d)}
                      loading={replaying.isPending && replaying.variables?.consegna === d.id}
                      data-testid={`riconsegna-${d.sequenza}`}
                    >
                      Riconsegna
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </DataTable>
      )}
      <Pager pages={pages} next={query.data?.prima} />
    </Stack>
  );
}

function Attempts({ id }: { id: number }) {
  const trpc = useTRPC();
  const pages = usePages();
  const query = useQuery({
    ...trpc.webhooks.attempts.queryOptions({ id, ...pages.bound }, { refetchInterval: 5_000 }),
    placeholderData: keepPreviousData,
  });
  const tentativi: Attempt[] = query.data?.tentativi ?? [];
  return (
    <Stack gap="xs" data-testid="tentativi-webhook">
      <Title order={4}>Registro dei tentativi</Title>
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      {query.isSuccess && tentativi.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nessun tentativo ancora.
        </Text>
      ) : (
        <DataTable
          minWidth={300}
          verticalSpacing="xs"
          columns={[
            { label: "Quando" },
            { label: "Evento", num: true, visibleFrom: "sm" },
            { label: "Esito" },
            { label: "Durata", num: true },
          ]}
        >
          {tentativi.map((a) => (
            // The answer on a row of its own, the table's whole width: a kilobyte is readable on a handheld too.
            <Fragment key={a.id}>
              <Table.Tr data-testid={`tentativo-${a.id}`} style={a.risposta ? { borderBottom: "none" } : undefined}>
                <Table.Td>
                  <Text size="sm">{moment(a.iniziato_il)}</Text>
                  <Text size="xs" c="dimmed" hiddenFrom="sm">
                    evento {a.sequenza}
                  </Text>
                </Table.Td>
                <Table.Td className="num" visibleFrom="sm">
                  {a.sequenza}
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={600} c={a.esito === "consegnato" ? "green.8" : "red.8"}>
                    {outcome(a.stato_http, a.esito)}
                  </Text>
                </Table.Td>
                <Table.Td className="num">
                  <Text size="sm" className="num" style={{ whiteSpace: "nowrap" }}>
                    {a.durata_ms} ms
                  </Text>
                </Table.Td>
              </Table.Tr>
              {a.risposta && (
                <Table.Tr data-testid={`risposta-${a.id}`}>
                  <Table.Td colSpan={4} pt={0}>
                    <Answer text={a.risposta} />
                  </Table.Td>
                </Table.Tr>
              )}
            </Fragment>
          ))}
        </DataTable>
      )}
      <Pager pages={pages} next={query.data?.prima} />
    </Stack>
  );
}
