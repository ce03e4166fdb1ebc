"use client";
import { NewestPager, useNewestPages } from "../newest-pages";
import { Alert, Button, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ORIGINI, type Origine } from "@/lib/domain-lists";
import { DateField } from "../date-field";
import { describeError } from "../errors";
import { day, money, qty, registeredNote } from "../format";
import { useWarehouses } from "../hooks";
import { DataTable } from "../data-table";
import { useTRPC } from "../trpc";
import { ArticlePicker } from "./article-picker";
import { type ArrivalToCancel, CancelArrivalDialog, cancelledNote } from "./cancel-arrival";
import { type MovementFilters, movementsPageInput } from "./movements/newest-page";

const NATURA_COLOR = { carico: "green.8", scarico: "red.8", trasferimento: "blue.8" } as const;

/**
 * The ledger with the REST list's filters, newest first for a person (movements.newest; the API pages
 * oldest first, its sync order), a page of 50 at a time. An arrival not yet cancelled has "Annulla
 * arrivo": the screen is a manager's, who may cancel anyone's arrival of any day.
 */
export function MovementsScreen() {
  const trpc = useTRPC();
  const { options: warehouseOptions, nameOf } = useWarehouses();
  const [da, setDa] = useState("");
  const [a, setA] = useState("");
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [origine, setOrigine] = useState<string | null>(null);
  const [operazione, setOperazione] = useState("");
  const [articolo, setArticolo] = useState<string | null>(null);
  const [cancelling, setCancelling] = useState<ArrivalToCancel | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const pages = useNewestPages();
  const restart = pages.restart;

  const filters: MovementFilters = {
    ...(da ? { da } : {}),
    ...(a ? { a } : {}),
    ...(magazzino ? { magazzino } : {}),
    ...(origine ? { origine: origine as Origine } : {}),
    ...(/^\d+$/.test(operazione) ? { operazione } : {}),
    ...(articolo ? { articolo } : {}),
  };
  const query = useQuery({
    ...trpc.movements.newest.queryOptions(movementsPageInput(filters, pages.prima)),
    placeholderData: keepPreviousData,
  });
  const rows = query.data?.movimenti ?? [];
  const arrivalOf = (m: (typeof rows)[number]): ArrivalToCancel => ({
    movimento: m.id,
    codice: m.articolo.codice,
    quantita: m.quantita,
    data: m.data,
    lotto: m.lotto,
    autore: m.autore ? `${m.autore.tipo === "chiave" ? "chiave " : ""}${m.autore.nome}` : null,
    magazzino: nameOf(m.magazzino),
  });

  return (
    <Stack gap="md" maw={1300}>
      <Title order={2}>Movimenti</Title>
      <SimpleGrid cols={{ base: 2, md: 3, lg: 6 }} spacing="sm">
        <DateField label="Dal" value={da} onChange={(v) => (setDa(v), restart())} data-testid="campo-da" />
        <DateField label="Al" value={a} onChange={(v) => (setA(v), restart())} data-testid="campo-a" />
        <Select
          label="Magazzino"
          placeholder="Tutti"
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => (setMagazzino(v), restart())}
          clearable
        />
        <Select
          label="Origine"
          placeholder="Tutte"
          data={[...ORIGINI]}
          value={origine}
          onChange={(v) => (setOrigine(v), restart())}
          clearable
          data-testid="campo-origine"
        />
        <TextInput
          label="Operazione"
          inputMode="numeric"
          value={operazione}
          onChange={(e) => (setOperazione(e.currentTarget.value.trim()), restart())}
        />
        <ArticlePicker label="Articolo" value={articolo} onChange={(v) => (setArticolo(v ? String(v.id) : null), restart())} />
      </SimpleGrid>
      {done && (
        <Alert color="green" variant="light" withCloseButton onClose={() => setDone(null)} data-testid="annullamento-arrivo">
          {done}
        </Alert>
      )}
      {query.error && (
        <Alert color="red" variant="filled">
          {describeError(query.error).messaggio}
        </Alert>
      )}
      <DataTable
        minWidth={900}
        cardColumns={3}
        striped
        verticalSpacing="xs"
        data-testid="tabella-movimenti"
        columns={[
          { label: "Id" },
          { label: "Data" },
          { label: "Origine" },
          { label: "Natura" },
          { label: "Magazzino" },
          { label: "Articolo", main: true },
          { label: "Quantità", num: true },
          { label: "Prezzo", num: true, visibleFrom: "sm" },
          { label: "Lotto" },
          { label: "Causale", wide: true },
        ]}
      >
        {rows.map((m) => (
          <Table.Tr key={m.id} data-testid={`movimento-${m.id}`}>
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              <Text size="sm">{m.id}</Text>
              <Text size="xs" c="dimmed">
                op. {m.operazione}
              </Text>
            </Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>
              {day(m.data)}
              {/* When it was written, in sight on a touch screen (no hover): two movements of a day apart. */}
              <Text size="xs" c="dimmed" data-testid="registrato">
                {registeredNote(m.data, m.registrato_il)}
              </Text>
            </Table.Td>
            <Table.Td>
              {/* Plain words, not badges: a badge in a narrow column is cut ("CAR…"). */}
              <Text size="sm" fw={600} tt="uppercase" c="dark.4">
                {m.origine}
              </Text>
              {m.autore && (
                <Text size="xs" c="dimmed" data-testid="autore" style={{ overflowWrap: "anywhere" }}>
                  {m.autore.tipo === "chiave" ? "chiave " : ""}
                  {m.autore.nome}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <Text size="sm" fw={700} tt="uppercase" c={NATURA_COLOR[m.natura]} data-testid="natura">
                {m.natura}
              </Text>
            </Table.Td>
            <Table.Td>{nameOf(m.magazzino)}</Table.Td>
            <Table.Td fw={600} style={{ overflowWrap: "anywhere" }}>
              {m.articolo.codice}
            </Table.Td>
            <Table.Td className="num" c={m.quantita.startsWith("-") ? "red.8" : "green.8"} fw={700}>
              {qty(m.quantita)}
            </Table.Td>
            <Table.Td className="num" visibleFrom="sm">
              {money(m.prezzo)}
            </Table.Td>
            <Table.Td>{m.lotto ?? ""}</Table.Td>
            <Table.Td>
              {m.causale && <Text size="sm">{m.causale}</Text>}
              {m.annulla !== null && (
                <Text size="xs" c="dimmed">
                  annulla {m.annulla}
                </Text>
              )}
              {m.origine === "arrivo" &&
                (m.annullato_da !== null ? (
                  <Text size="xs" c="dimmed" data-testid={`annullato-${m.id}`}>
                    Annullato dal movimento {m.annullato_da}
                  </Text>
                ) : (
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    mt={4}
                    // Its words may wrap: the last column is narrow at 1280 px, and a button that does not wrap widens the table past the screen.
                    styles={{
                      root: { height: "auto", minHeight: 30, paddingBlock: 4 },
                      label: { whiteSpace: "normal", textAlign: "left", lineHeight: 1.25 },
                    }}
                    onClick={() => (setDone(null), setCancelling(arrivalOf(m)))}
                    data-testid={`annulla-arrivo-${m.id}`}
                  >
                    Annulla arrivo
                  </Button>
                ))}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {!query.isLoading && rows.length === 0 && <Text c="dimmed">Nessun movimento con questi filtri.</Text>}
      {cancelling && (
        <CancelArrivalDialog
          arrival={cancelling}
          onClose={() => setCancelling(null)}
          onDone={(out) => {
            setDone(cancelledNote(cancelling, out));
            setCancelling(null);
          }}
        />
      )}
      <NewestPager pages={pages} olderPrima={query.data?.prima ?? null} busy={query.isFetching} />
    </Stack>
  );
}
