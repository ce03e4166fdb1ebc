"use client";
import { Alert, Button, Card, Group, Select, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { STATI_PRENOTAZIONE } from "@/lib/domain-lists";
import type { ScreenReservationOutput } from "@/server/modules/reservations/reservations-screens.schemas";
import { DataTable } from "../../data-table";
import { describeError } from "../../errors";
import { instant, qty } from "../../format";
import { useWarehouses } from "../../hooks";
import { NewestPager, useNewestPages } from "../../newest-pages";
import { useTRPC } from "../../trpc";
import { type ReservationFilters, reservationsPageInput } from "./newest-page";
import { ReleaseDialog, releasedNote } from "./release-dialog";
import { mayRelease, STATE_COLOR, STATE_LABEL } from "./reservation-words";

const STATE_OPTIONS = STATI_PRENOTAZIONE.map((s) => ({ value: s, label: STATE_LABEL[s] }));

/** A figure that needs a look stands out: uncovered is held stock the warehouse no longer has. */
const warn = (v: string) => (v === "0" ? undefined : "red.8");

/** One reservation: who and what for on top, its rows under it, the release where it holds something. */
function ReservationCard({ p, onRelease }: { p: ScreenReservationOutput; onRelease: () => void }) {
  return (
    <Card withBorder padding="sm" data-testid={`prenotazione-${p.riferimento}`}>
      <Stack gap="xs">
        <Group justify="space-between" align="start" gap="xs">
          <Stack gap={0} style={{ minWidth: 0, flex: "1 1 220px" }}>
            <Text fw={700} style={{ overflowWrap: "anywhere" }} data-testid="riferimento">
              {p.riferimento}
            </Text>
            <Text size="sm" style={{ overflowWrap: "anywhere" }} data-testid="cliente">
              {p.cliente.nome}{" "}
              <Text span size="xs" c="dimmed">
                ({p.cliente.codice})
              </Text>
            </Text>
            <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
              Magazzino {p.magazzino.codice}
              {p.scade_il ? ` · scade ${instant(p.scade_il)}` : ""}
              {p.autore ? ` · inviata da ${p.autore.tipo === "chiave" ? "chiave " : ""}${p.autore.nome}` : ""}
            </Text>
          </Stack>
          <Group gap="sm" wrap="nowrap" align="center">
            {/* Plain words, not a badge: a badge is cut ("IN PREL…") where the card is narrow. */}
            <Text size="sm" fw={700} tt="uppercase" c={STATE_COLOR[p.stato]} style={{ whiteSpace: "nowrap" }} data-testid="stato">
              {STATE_LABEL[p.stato]}
            </Text>
            {mayRelease(p) && (
              <Button size="sm" color="red" variant="light" onClick={onRelease} data-testid={`rilascia-${p.riferimento}`}>
                Rilascia
              </Button>
            )}
          </Group>
        </Group>
        <DataTable
          minWidth={300}
          cardColumns={3}
          verticalSpacing={4}
          data-testid="righe"
          columns={[
            { label: "Articolo", main: true },
            // Fixed widths: the figures of one card line up with the next card's at desktop width.
            { label: "Richiesta", num: true, w: 96 },
            { label: "Prenotata", num: true, w: 96 },
            { label: "Prelevata", num: true, w: 96 },
            { label: "Spedita", num: true, w: 96 },
            { label: "Scoperta", num: true, w: 96 },
          ]}
        >
          {p.righe.map((r) => (
            <Table.Tr key={r.numero_riga} data-testid={`riga-${r.numero_riga}`}>
              <Table.Td style={{ overflowWrap: "anywhere" }}>
                <Text size="sm" fw={600} span>
                  {r.numero_riga}. {r.articolo.codice}
                </Text>
                {r.lotto && (
                  <Text size="xs" span c="dimmed">
                    {" "}
                    · lotto {r.lotto}
                  </Text>
                )}
                <Text size="xs" c="dimmed">
                  {r.articolo.descrizione}
                </Text>
              </Table.Td>
              <Table.Td className="num" data-testid="richiesta">
                {qty(r.richiesta)}
              </Table.Td>
              <Table.Td className="num" fw={700} data-testid="prenotata">
                {qty(r.prenotata)}
              </Table.Td>
              <Table.Td className="num" data-testid="prelevata">
                {qty(r.prelevata)}
              </Table.Td>
              <Table.Td className="num" data-testid="spedita">
                {qty(r.spedita)}
              </Table.Td>
              <Table.Td className="num" c={warn(r.scoperta)} data-testid="scoperta">
                {qty(r.scoperta)}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </Stack>
    </Card>
  );
}

/**
 * The reservations the shops and the ERP sent by REST (docs/api.md section 14), newest first, 20 a page: per
 * reservation the customer, the reference, the state in force, and per row what was asked, what is held, picked,
 * shipped and uncovered. A manager releases one that still holds stock (all its rows), after a confirmation.
 */
export function ReservationsScreen() {
  const trpc = useTRPC();
  const { options: warehouseOptions } = useWarehouses();
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [stato, setStato] = useState<string | null>(null);
  const [releasing, setReleasing] = useState<ScreenReservationOutput | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const pages = useNewestPages();
  const restart = pages.restart;
  const filters: ReservationFilters = {
    ...(magazzino ? { magazzino } : {}),
    ...(stato ? { stato: stato as ReservationFilters["stato"] & string } : {}),
  };
  const query = useQuery({
    ...trpc.reservations.newest.queryOptions(reservationsPageInput(filters, pages.prima)),
    placeholderData: keepPreviousData,
  });
  const list = query.data?.prenotazioni ?? [];

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Prenotazioni</Title>
      {/* Two fields, each wide enough for a warehouse's code and name. */}
      <SimpleGrid cols={2} spacing="sm" maw={640}>
        <Select
          label="Stato"
          placeholder="Tutti"
          data={STATE_OPTIONS}
          value={stato}
          onChange={(v) => (setStato(v), restart())}
          clearable
          data-testid="campo-stato"
        />
        <Select
          label="Magazzino"
          placeholder="Tutti"
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => (setMagazzino(v), restart())}
          clearable
          data-testid="campo-magazzino"
        />
      </SimpleGrid>
      {done && (
        <Alert color="green" variant="light" withCloseButton onClose={() => setDone(null)} data-testid="rilascio-fatto">
          {done}
        </Alert>
      )}
      {query.error && (
        <Alert color="red" variant="filled">
          {describeError(query.error).messaggio}
        </Alert>
      )}
      <Stack gap="sm" data-testid="elenco-prenotazioni">
        {list.map((p) => (
          <ReservationCard key={p.id} p={p} onRelease={() => (setDone(null), setReleasing(p))} />
        ))}
      </Stack>
      {!query.isLoading && list.length === 0 && <Text c="dimmed">Nessuna prenotazione con questi filtri.</Text>}
      {releasing && (
        <ReleaseDialog
          reservation={releasing}
          onClose={() => setReleasing(null)}
          onDone={(out) => {
            setDone(releasedNote(releasing, out));
            setReleasing(null);
          }}
        />
      )}
      <NewestPager pages={pages} olderPrima={query.data?.prima ?? null} busy={query.isFetching} />
    </Stack>
  );
}
