"use client";
import { Alert, Badge, Button, Group, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ORIGINI } from "@/server/modules/movements/movements.schemas";
import { describeError } from "../errors";
import { day, instant, money, qty } from "../format";
import { useWarehouses } from "../hooks";
import { DataTable } from "../data-table";
import { useTRPC } from "../trpc";
import { ArticlePicker } from "./article-picker";

const NATURA_COLOR = { carico: "green", scarico: "red", trasferimento: "blue" } as const;

/** The ledger with the REST list's filters, paged forward by cursor. */
export function MovementsScreen() {
  const trpc = useTRPC();
  const { options: warehouseOptions, nameOf } = useWarehouses();
  const [da, setDa] = useState("");
  const [a, setA] = useState("");
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [origine, setOrigine] = useState<string | null>(null);
  const [operazione, setOperazione] = useState("");
  const [articolo, setArticolo] = useState<string | null>(null);
  const [cursors, setCursors] = useState<number[]>([0]);
  const restart = () => setCursors([0]);

  const input = {
    limite: "50",
    dopo: String(cursors.at(-1)!),
    ...(da ? { da } : {}),
    ...(a ? { a } : {}),
    ...(magazzino ? { magazzino } : {}),
    ...(origine ? { origine: origine as (typeof ORIGINI)[number] } : {}),
    ...(/^\d+$/.test(operazione) ? { operazione } : {}),
    ...(articolo ? { articolo } : {}),
  };
  const query = useQuery({ ...trpc.movements.list.queryOptions(input), placeholderData: keepPreviousData });
  const rows = query.data?.movimenti ?? [];

  return (
    <Stack gap="md" maw={1300}>
      <Title order={2}>Movimenti</Title>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 6 }} spacing="sm">
        <TextInput label="Dal" type="date" value={da} onChange={(e) => (setDa(e.currentTarget.value), restart())} data-testid="campo-da" />
        <TextInput label="Al" type="date" value={a} onChange={(e) => (setA(e.currentTarget.value), restart())} data-testid="campo-a" />
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
      {query.error && (
        <Alert color="red" variant="filled">
          {describeError(query.error).messaggio}
        </Alert>
      )}
      <DataTable
        minWidth={900}
        striped
        verticalSpacing="xs"
        data-testid="tabella-movimenti"
        columns={[
          { label: "Id" },
          { label: "Data" },
          { label: "Origine" },
          { label: "Natura" },
          { label: "Magazzino" },
          { label: "Articolo" },
          { label: "Quantità", num: true },
          { label: "Prezzo", num: true },
          { label: "Lotto" },
          { label: "Causale" },
        ]}
      >
        {rows.map((m) => (
          <Table.Tr key={m.id}>
            <Table.Td>
              <Text size="sm">{m.id}</Text>
              <Text size="xs" c="dimmed">
                op. {m.operazione}
              </Text>
            </Table.Td>
            <Table.Td title={instant(m.registrato_il)}>{day(m.data)}</Table.Td>
            <Table.Td>
              <Badge variant="light" color="gray">
                {m.origine}
              </Badge>
              {m.autore && (
                <Text size="xs" c="dimmed" data-testid="autore">
                  {m.autore.tipo === "chiave" ? "chiave " : ""}
                  {m.autore.nome}
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={NATURA_COLOR[m.natura]}>
                {m.natura}
              </Badge>
            </Table.Td>
            <Table.Td>{nameOf(m.magazzino)}</Table.Td>
            <Table.Td fw={600}>{m.articolo.codice}</Table.Td>
            <Table.Td className="num" c={m.quantita.startsWith("-") ? "red.8" : "green.8"} fw={700}>
              {qty(m.quantita)}
            </Table.Td>
            <Table.Td className="num">{money(m.prezzo)}</Table.Td>
            <Table.Td>{m.lotto ?? ""}</Table.Td>
            <Table.Td>
              <Text size="sm">{m.causale ?? ""}</Text>
              {m.annulla !== null && (
                <Text size="xs" c="dimmed">
                  annulla {m.annulla}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {!query.isLoading && rows.length === 0 && <Text c="dimmed">Nessun movimento con questi filtri.</Text>}
      <Group justify="flex-end">
        <Button variant="default" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Precedente
        </Button>
        <Button
          variant="default"
          disabled={!query.data?.altri || query.isFetching}
          onClick={() => query.data && setCursors((c) => [...c, query.data.cursore])}
        >
          Successiva
        </Button>
      </Group>
    </Stack>
  );
}
