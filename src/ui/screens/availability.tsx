"use client";
import { Alert, Button, Group, Loader, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { DateField } from "../date-field";
import { describeError } from "../errors";
import { day, qty } from "../format";
import { useTypedBeforeStart, useWarehouses } from "../hooks";
import { DataTable } from "../data-table";
import { useTRPC } from "../trpc";

/** The whole catalogue's stock, paged by article id (the REST list's cursor), with a streamed export. */
export function AvailabilityScreen() {
  const trpc = useTRPC();
  const { options: warehouseOptions, magazzini, nameOf } = useWarehouses();
  const [cerca, setCerca] = useState("");
  const searchRef = useRef<HTMLInputElement>(null);
  // A search begun while the page loads is kept, not wiped by the first render.
  useTypedBeforeStart(searchRef, setCerca);
  const [debounced] = useDebouncedValue(cerca.trim(), 300);
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [a, setA] = useState("");
  const [limite, setLimite] = useState("50");
  // Cursors of the pages seen so far: "back" pops one.
  const [cursors, setCursors] = useState<number[]>([0]);
  const dopo = cursors.at(-1)!;

  const filters = {
    ...(debounced ? { cerca: debounced } : {}),
    ...(magazzino ? { magazzino } : {}),
    ...(a ? { a } : {}),
  };
  const query = useQuery({
    ...trpc.availability.list.queryOptions({ ...filters, limite, dopo: String(dopo) }),
    placeholderData: keepPreviousData,
  });
  const restart = () => setCursors([0]);
  const rows = query.data?.disponibilita ?? [];
  // Only where a warehouse of the rows manages locations (GET /disponibilita omits it elsewhere).
  const quarantine = rows.some((r) => r.in_quarantena !== undefined);
  // Today only: a past day (`a`) has no holds (docs/api.md section 14), and the service leaves both out.
  const promise = rows.some((r) => r.disponibile !== undefined);
  const exportHref = `/api/esportazioni/disponibilita?${new URLSearchParams(filters).toString()}`;
  // The export follows the filters on screen (not the page): the button says which rows it writes.
  const exportScope = [
    debounced ? `solo gli articoli con "${debounced}"` : "",
    magazzino ? `giacenza del magazzino ${nameOf(Number(magazzino))}` : "",
    a ? `al ${day(a)}` : "",
  ].filter(Boolean);

  return (
    <Stack gap="md" maw={1200}>
      <Group justify="space-between" align="end">
        <Title order={2}>Disponibilità</Title>
        <Button component="a" href={exportHref} variant="light" data-testid="esporta" download>
          {exportScope.length ? "Esporta in CSV, filtrato" : "Esporta tutto in CSV"}
        </Button>
      </Group>
      <Text size="sm" c="dimmed" mt={-8} data-testid="ambito-esportazione">
        {exportScope.length
          ? `Il CSV ha tutte le pagine, con i filtri: ${exportScope.join(", ")}.`
          : "Il CSV ha tutto il catalogo, tutte le pagine, con prenotata, disponibile e la giacenza di ogni magazzino."}
      </Text>
      <SimpleGrid cols={{ base: 2, md: 4 }} spacing="sm">
        <TextInput
          ref={searchRef}
          label="Cerca codice o descrizione"
          value={cerca}
          onChange={(e) => (setCerca(e.currentTarget.value), restart())}
          data-testid="campo-cerca"
          rightSection={query.isFetching ? <Loader size="xs" /> : null}
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
        <DateField label="Situazione al giorno" value={a} onChange={(v) => (setA(v), restart())} data-testid="campo-data" />
        <Select
          label="Righe per pagina"
          data={["10", "20", "50", "100", "500"]}
          value={limite}
          onChange={(v) => (setLimite(v ?? "50"), restart())}
          allowDeselect={false}
          data-testid="campo-limite"
        />
      </SimpleGrid>
      {query.error && (
        <Alert color="red" variant="filled">
          {describeError(query.error).messaggio}
        </Alert>
      )}
      {a && (
        // Both figures are as they stood at that day's end (GET /disponibilita `a`), "in arrivo" included.
        <Text size="sm" fw={600} data-testid="situazione-al-giorno">
          Giacenza e in arrivo alla fine del {day(a)}.
        </Text>
      )}
      <DataTable
        minWidth={300}
        striped
        highlightOnHover
        verticalSpacing="xs"
        data-testid="tabella-disponibilita"
        columns={[
          { label: "Codice" },
          { label: "Descrizione", visibleFrom: "sm" },
          { label: "Giacenza", num: true },
          ...(promise
            ? [
                { label: "Prenotata", num: true },
                { label: "Disponibile", num: true },
              ]
            : []),
          { label: "In arrivo", num: true },
          ...(quarantine ? [{ label: "In quarantena", num: true }] : []),
          ...(magazzino ? [] : magazzini.map((m) => ({ key: `magazzino-${m.id}`, label: m.codice, num: true }))),
        ]}
      >
        {rows.map((r) => (
          <Table.Tr key={r.articolo.id} data-testid={`disponibilita-${r.articolo.codice}`}>
            <Table.Td>
              {/* A code is read whole: "PREN-VITE" broken at its hyphen reads as two codes (globals.css, `code-whole`). */}
              <Text fw={600} size="sm" className="code-whole">
                {r.articolo.codice}
              </Text>
              <Text size="xs" c="dimmed" hiddenFrom="sm">
                {r.articolo.descrizione}
              </Text>
            </Table.Td>
            <Table.Td visibleFrom="sm">{r.articolo.descrizione}</Table.Td>
            <Table.Td className="num" fw={700} data-testid="giacenza">
              {qty(r.giacenza)}
            </Table.Td>
            {promise && (
              <>
                <Table.Td className="num" data-testid="prenotata">
                  {qty(r.prenotata ?? "0")}
                </Table.Td>
                <Table.Td className="num" fw={700} c={r.disponibile === "0" ? undefined : "green.9"} data-testid="disponibile">
                  {qty(r.disponibile ?? "0")}
                </Table.Td>
              </>
            )}
            <Table.Td className="num" data-testid="in-arrivo">
              {qty(r.in_arrivo)}
            </Table.Td>
            {quarantine && (
              <Table.Td className="num" data-testid="in-quarantena">
                {qty(r.in_quarantena ?? "0")}
              </Table.Td>
            )}
            {!magazzino &&
              magazzini.map((m) => (
                <Table.Td key={m.id} className="num">
                  {qty(r.magazzini?.find((w) => w.magazzino === m.id)?.giacenza ?? "0")}
                </Table.Td>
              ))}
          </Table.Tr>
        ))}
      </DataTable>
      {!query.isLoading && rows.length === 0 && <Text c="dimmed">Nessun articolo{debounced ? ` che contenga "${debounced}"` : ""}.</Text>}
      <Group justify="space-between">
        <Text size="sm" c="dimmed" data-testid="pagina">
          Pagina {cursors.length}
        </Text>
        <Group>
          <Button
            variant="default"
            disabled={cursors.length === 1}
            onClick={() => setCursors((c) => c.slice(0, -1))}
            data-testid="pagina-precedente"
          >
            Precedente
          </Button>
          <Button
            variant="default"
            disabled={!query.data?.altri || query.isFetching}
            onClick={() => query.data && setCursors((c) => [...c, query.data.cursore])}
            data-testid="pagina-successiva"
          >
            Successiva
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}
