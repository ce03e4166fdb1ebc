"use client";
import { NewestPager, useNewestPages } from "../newest-pages";
import {
  ActionIcon,
  Alert,
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
import { useForm } from "@mantine/form";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { SaleDocumentOutput } from "@/server/modules/sales/sales.schemas";
import { DateField } from "../date-field";
import { describeError } from "../errors";
import { signal } from "../feedback";
import { day, money, parseDecimal, qty } from "../format";
import { useWarehouses } from "../hooks";
import { DataTable } from "../data-table";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";
import { useArticleRefs } from "../article-refs";
import { salesPageInput } from "./sales/newest-page";

type Tipo = "ddt" | "fattura" | "scontrino";
const TIPO_LABEL: Record<Tipo, string> = { ddt: "DDT", fattura: "Fattura", scontrino: "Scontrino" };

interface DraftRow {
  articolo: string;
  quantita: string;
  prezzo: string;
  sconto: string;
  aliquota_iva: string;
  lotto: string;
}
interface SaleDraft {
  tipo: Tipo;
  cliente: string | null;
  magazzino: string | null;
  data: string;
  righe: DraftRow[];
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

/**
 * The documents issued, newest first for a person (sales.newest; the API pages oldest first, its sync
 * order), a page of 50 at a time: a document just issued is on top of the first page.
 */
export function SalesListScreen() {
  const trpc = useTRPC();
  const pages = useNewestPages();
  const query = useQuery({
    ...trpc.sales.newest.queryOptions(salesPageInput(pages.prima)),
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
      <DataTable
        minWidth={640}
        striped
        verticalSpacing="xs"
        data-testid="tabella-vendite"
        columns={[
          { label: "Numero" },
          { label: "Tipo" },
          { label: "Data" },
          { label: "Cliente", wide: true },
          { label: "Righe", num: true },
          { label: "Totale", num: true },
        ]}
      >
        {docs.map((d) => (
          <Table.Tr key={d.id} data-testid={`documento-${d.id}`}>
            <Table.Td fw={700}>{d.numero}</Table.Td>
            <Table.Td>
              {/* The word whole: a badge in a narrow column was cut to "FATT…". */}
              <Text size="sm" fw={700} tt="uppercase" c="indigo.8" data-testid="tipo">
                {TIPO_LABEL[d.tipo]}
              </Text>
            </Table.Td>
            <Table.Td style={{ whiteSpace: "nowrap" }}>{day(d.data)}</Table.Td>
            <Table.Td>{d.cliente.ragione_sociale}</Table.Td>
            <Table.Td className="num">{d.righe.length}</Table.Td>
            <Table.Td className="num" fw={700}>
              {money(d.totale)}
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {!query.isLoading && docs.length === 0 && <Text c="dimmed">Nessun documento emesso.</Text>}
      <NewestPager pages={pages} olderPrima={query.data?.prima ?? null} busy={query.isFetching} />
    </Stack>
  );
}

export function SaleFormScreen() {
  const queryClient = useQueryClient();
  const trpc = useTRPC();
  const { options: warehouseOptions } = useWarehouses();
  const form = useForm<SaleDraft>({ initialValues: { tipo: "ddt", cliente: null, magazzino: null, data: "", righe: [emptyRow()] } });
  const { tipo, cliente, magazzino, data, righe: rows } = form.getValues();
  const { saving, error, setError, run } = useWrite((context) => trpc.sales.create.mutationOptions({ trpc: { context } }));
  const resolveRefs = useArticleRefs();
  const [created, setCreated] = useState<SaleDocumentOutput | null>(null);
  const field = (path: string) => {
    const { value, onChange } = form.getInputProps(path);
    return { value, onChange };
  };

  async function submit() {
    if (saving) return;
    setError(null);
    if (!cliente || !magazzino) return setError("Scegliere cliente e magazzino.");
    let refOf: Awaited<ReturnType<typeof resolveRefs>>;
    try {
      refOf = await resolveRefs(rows.map((r) => r.articolo));
    } catch (e) {
      return setError(describeError(e).messaggio);
    }
    const righe = [];
    for (const [i, r] of rows.entries()) {
      if (!r.articolo.trim()) continue;
      const q = parseDecimal(r.quantita);
      if (q === null || q <= 0) return setError(`Riga ${i + 1}: quantità non valida "${r.quantita}".`);
      if (!r.prezzo.trim()) return setError(`Riga ${i + 1}: indicare il prezzo.`);
      righe.push({
        ...refOf(r.articolo),
        quantita: q,
        prezzo: decimalText(r.prezzo),
        aliquota_iva: decimalText(r.aliquota_iva),
        ...(r.sconto.trim() ? { sconto: decimalText(r.sconto) } : {}),
        ...(r.lotto.trim() ? { lotto: r.lotto.trim() } : {}),
      });
    }
    if (righe.length === 0) return setError("Aggiungere almeno una riga.");
    const doc = await run({ tipo, cliente: Number(cliente), magazzino: Number(magazzino), ...(data ? { data } : {}), righe });
    if (!doc) return;
    setCreated(doc);
    form.setFieldValue("righe", [emptyRow()]);
    signal("ok");
    await queryClient.invalidateQueries({ queryKey: trpc.sales.newest.pathKey() });
  }

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Nuovo documento di vendita</Title>
      <SegmentedControl
        fullWidth
        value={tipo}
        onChange={(v) => form.setFieldValue("tipo", v as Tipo)}
        data={[
          { value: "ddt", label: "DDT" },
          { value: "fattura", label: "Fattura" },
          { value: "scontrino", label: "Scontrino" },
        ]}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <ClientPicker value={cliente} onChange={(id) => form.setFieldValue("cliente", id)} />
        <Select
          label="Magazzino"
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => form.setFieldValue("magazzino", v)}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <DateField label="Data (predefinita oggi)" value={data} onChange={(v) => form.setFieldValue("data", v)} />
      </SimpleGrid>
      <Stack gap="xs">
        {rows.map((_r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a row is its position in the form; its inputs are controlled by that path
          <Card key={i} withBorder padding="xs">
            <SimpleGrid cols={{ base: 2, sm: 6 }} spacing="xs">
              <TextInput label="Articolo (codice o EAN)" {...field(`righe.${i}.articolo`)} data-testid={`riga-${i}-articolo`} />
              <TextInput label="Quantità" inputMode="decimal" {...field(`righe.${i}.quantita`)} data-testid={`riga-${i}-quantita`} />
              <TextInput label="Prezzo" inputMode="decimal" {...field(`righe.${i}.prezzo`)} data-testid={`riga-${i}-prezzo`} />
              <TextInput label="Sconto %" inputMode="decimal" {...field(`righe.${i}.sconto`)} />
              <TextInput label="IVA %" inputMode="decimal" {...field(`righe.${i}.aliquota_iva`)} />
              <Group gap={4} align="end" wrap="nowrap">
                <TextInput label="Lotto" {...field(`righe.${i}.lotto`)} style={{ flex: 1 }} />
                {rows.length > 1 && (
                  <ActionIcon
                    size="xl"
                    variant="light"
                    color="red"
                    aria-label={`Togli la riga ${i + 1}`}
                    onClick={() => form.removeListItem("righe", i)}
                  >
                    ×
                  </ActionIcon>
                )}
              </Group>
            </SimpleGrid>
          </Card>
        ))}
        <Button variant="light" w="fit-content" onClick={() => form.insertListItem("righe", emptyRow())}>
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
            {created.righe.map((r) => (
              <Text key={r.movimento} size="sm">
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
