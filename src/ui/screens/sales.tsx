"use client";
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Group,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { SaleDocumentOutput } from "@/server/modules/sales/sales.schemas";
import { describeError } from "../errors";
import { signal } from "../feedback";
import { day, money, parseDecimal, qty } from "../format";
import { useWarehouses } from "../hooks";
import { useTRPC, useTRPCClient } from "../trpc";
import { useWrite } from "../write-key";
import { articleRef } from "./movement-form";

type Tipo = "ddt" | "fattura" | "scontrino";

interface DraftRow {
  articolo: string;
  quantita: string;
  prezzo: string;
  sconto: string;
  aliquota_iva: string;
  lotto: string;
}
const emptyRow = (): DraftRow => ({ articolo: "", quantita: "", prezzo: "", sconto: "", aliquota_iva: "22", lotto: "" });

/** A person writes "12,50": the contract wants "12.50". */
const decimalText = (s: string) => s.trim().replace(",", ".");

/**
 * The client field: the server searches by code, name or VAT number as the operator types (a shop
 * may have thousands of clients); with nothing typed, the first 20 by name.
 */
function ClientPicker({ value, onChange }: { value: string | null; onChange: (id: string | null) => void }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [cerca] = useDebouncedValue(search.trim(), 200);
  const [chosen, setChosen] = useState<{ value: string; label: string } | null>(null);
  const q = useQuery({ ...trpc.clients.search.queryOptions({ cerca }), placeholderData: keepPreviousData, staleTime: 30_000 });
  const options = (q.data?.clienti ?? []).map((c) => ({ value: String(c.id), label: `${c.ragione_sociale} (${c.codice})` }));
  // The chosen client stays selectable (and its name shown) whatever the current search returned.
  const data = chosen && !options.some((o) => o.value === chosen.value) ? [chosen, ...options] : options;
  return (
    <Select
      label="Cliente"
      placeholder="Codice, nome o partita IVA"
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options: all }) => all}
      data={data}
      value={value}
      onChange={(id, option) => {
        setChosen(option ? { value: option.value, label: option.label } : null);
        onChange(id);
      }}
      nothingFoundMessage={q.isFetching ? "Ricerca…" : "Nessun cliente trovato"}
      data-testid="campo-cliente"
    />
  );
}

export function SalesListScreen() {
  const trpc = useTRPC();
  const [cursors, setCursors] = useState<number[]>([0]);
  const query = useQuery({
    ...trpc.sales.list.queryOptions({ limite: "50", dopo: String(cursors.at(-1)!) }),
    placeholderData: keepPreviousData,
  });
  const docs = query.data?.documenti ?? [];
  return (
    <Stack gap="md" maw={1100}>
      <Group justify="space-between">
        <Title order={2}>Documenti di vendita</Title>
        <Button component={Link} href="/vendite/nuovo" data-testid="nuovo-documento">
          Nuovo documento
        </Button>
      </Group>
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      <Table.ScrollContainer minWidth={640}>
        <Table striped verticalSpacing="xs" data-testid="tabella-vendite">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Numero</Table.Th>
              <Table.Th>Tipo</Table.Th>
              <Table.Th>Data</Table.Th>
              <Table.Th>Cliente</Table.Th>
              <Table.Th className="num">Righe</Table.Th>
              <Table.Th className="num">Totale</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {docs.map((d) => (
              <Table.Tr key={d.id}>
                <Table.Td fw={700}>{d.numero}</Table.Td>
                <Table.Td>
                  <Badge variant="light">{d.tipo}</Badge>
                </Table.Td>
                <Table.Td>{day(d.data)}</Table.Td>
                <Table.Td>{d.cliente.ragione_sociale}</Table.Td>
                <Table.Td className="num">{d.righe.length}</Table.Td>
                <Table.Td className="num" fw={700}>
                  {money(d.totale)}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="flex-end">
        <Button variant="default" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Precedente
        </Button>
        <Button variant="default" disabled={!query.data?.altri} onClick={() => query.data && setCursors((c) => [...c, query.data.cursore])}>
          Successiva
        </Button>
      </Group>
    </Stack>
  );
}

export function SaleFormScreen() {
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  const { options: warehouseOptions } = useWarehouses();
  const [tipo, setTipo] = useState<Tipo>("ddt");
  const [cliente, setCliente] = useState<string | null>(null);
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [data, setData] = useState("");
  const [rows, setRows] = useState<DraftRow[]>([emptyRow()]);
  const { saving, error, setError, run } = useWrite();
  const [created, setCreated] = useState<SaleDocumentOutput | null>(null);
  const update = (i: number, patch: Partial<DraftRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  async function submit() {
    if (saving) return;
    setError(null);
    if (!cliente || !magazzino) return setError("Scegliere cliente e magazzino.");
    const righe = [];
    for (const [i, r] of rows.entries()) {
      if (!r.articolo.trim()) continue;
      const q = parseDecimal(r.quantita);
      if (q === null || q <= 0) return setError(`Riga ${i + 1}: quantità non valida "${r.quantita}".`);
      if (!r.prezzo.trim()) return setError(`Riga ${i + 1}: indicare il prezzo.`);
      righe.push({
        ...articleRef(r.articolo),
        quantita: q,
        prezzo: decimalText(r.prezzo),
        aliquota_iva: decimalText(r.aliquota_iva),
        ...(r.sconto.trim() ? { sconto: decimalText(r.sconto) } : {}),
        ...(r.lotto.trim() ? { lotto: r.lotto.trim() } : {}),
      });
    }
    if (righe.length === 0) return setError("Aggiungere almeno una riga.");
    const doc = await run(
      { tipo, cliente: Number(cliente), magazzino: Number(magazzino), ...(data ? { data } : {}), righe },
      client.sales.create.mutate,
    );
    if (!doc) return;
    setCreated(doc);
    setRows([emptyRow()]);
    signal("ok");
    await queryClient.invalidateQueries({ queryKey: trpc.sales.list.pathKey() });
  }

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Nuovo documento di vendita</Title>
      <SegmentedControl
        fullWidth
        value={tipo}
        onChange={(v) => setTipo(v as Tipo)}
        data={[
          { value: "ddt", label: "DDT" },
          { value: "fattura", label: "Fattura" },
          { value: "scontrino", label: "Scontrino" },
        ]}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <ClientPicker value={cliente} onChange={setCliente} />
        <Select
          label="Magazzino"
          data={warehouseOptions}
          value={magazzino}
          onChange={setMagazzino}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <TextInput label="Data (predefinita oggi)" type="date" value={data} onChange={(e) => setData(e.currentTarget.value)} />
      </SimpleGrid>
      <Stack gap="xs">
        {rows.map((r, i) => (
          <Card key={i} withBorder padding="xs">
            <SimpleGrid cols={{ base: 2, sm: 6 }} spacing="xs">
              <TextInput
                label="Articolo (codice o EAN)"
                value={r.articolo}
                onChange={(e) => update(i, { articolo: e.currentTarget.value })}
                data-testid={`riga-${i}-articolo`}
              />
              <TextInput
                label="Quantità"
                inputMode="decimal"
                value={r.quantita}
                onChange={(e) => update(i, { quantita: e.currentTarget.value })}
                data-testid={`riga-${i}-quantita`}
              />
              <TextInput
                label="Prezzo"
                inputMode="decimal"
                value={r.prezzo}
                onChange={(e) => update(i, { prezzo: e.currentTarget.value })}
                data-testid={`riga-${i}-prezzo`}
              />
              <TextInput
                label="Sconto %"
                inputMode="decimal"
                value={r.sconto}
                onChange={(e) => update(i, { sconto: e.currentTarget.value })}
              />
              <TextInput
                label="IVA %"
                inputMode="decimal"
                value={r.aliquota_iva}
                onChange={(e) => update(i, { aliquota_iva: e.currentTarget.value })}
              />
              <Group gap={4} align="end" wrap="nowrap">
                <TextInput
                  label="Lotto"
                  value={r.lotto}
                  onChange={(e) => update(i, { lotto: e.currentTarget.value })}
                  style={{ flex: 1 }}
                />
                {rows.length > 1 && (
                  <ActionIcon
                    size="xl"
                    variant="light"
                    color="red"
                    aria-label={`Togli la riga ${i + 1}`}
                    onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}
                  >
                    ×
                  </ActionIcon>
                )}
              </Group>
            </SimpleGrid>
          </Card>
        ))}
        <Button variant="light" w="fit-content" onClick={() => setRows((rs) => [...rs, emptyRow()])}>
          Aggiungi riga
        </Button>
      </Stack>
      {error && (
        <Alert color="red" variant="filled" role="alert">
          {error}
        </Alert>
      )}
      {created && (
        <Alert
          color="green"
          title={`Documento ${created.tipo} n. ${created.numero} del ${day(created.data)} emesso`}
          data-testid="documento-creato"
        >
          <Stack gap={2}>
            {created.righe.map((r, i) => (
              <Text key={i} size="sm">
                {qty(r.quantita)} × {r.articolo.codice} a {money(r.prezzo)} = {money(r.importo)}
              </Text>
            ))}
            <Text fw={700}>
              Imponibile {money(created.imponibile)} · IVA {money(created.imposta)} · Totale {money(created.totale)}
            </Text>
          </Stack>
        </Alert>
      )}
      <Group>
        <Button size="lg" onClick={() => void submit()} loading={saving} data-testid="emetti-documento">
          Emetti documento
        </Button>
        <Button component={Link} href="/vendite" variant="default" size="lg">
          Elenco documenti
        </Button>
      </Group>
    </Stack>
  );
}
