"use client";
import { Alert, Button, Group, Loader, SegmentedControl, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Fragment, type KeyboardEvent, type ReactNode, useState } from "react";
import { DataTable } from "../data-table";
import { describeError } from "../errors";
import { money } from "../format";
import { useSearchText } from "../search-text";
import { useTRPC } from "../trpc";
import { LOOKUP_PAGE } from "./catalogue-lookup";
import { ownClick, WhereIsButton, WhereIsList } from "./locations/where-is";
import { ArticleHolders } from "./reservations/holders";

/** Master data is read-only on the screens (it comes from the ERP by REST or from the import): look-ups only. */

type ActiveFilter = "attivi" | "disattivati" | "tutti";

/** The search, the active filter and the id cursors of the pages seen ("Precedente" pops one). */
function useLookup() {
  const search = useSearchText();
  const debounced = search.applied;
  const [attivo, setAttivo] = useState<ActiveFilter>("attivi");
  const [cursors, setCursors] = useState<number[]>([0]);
  const input = {
    ...(debounced ? { cerca: debounced } : {}),
    ...(attivo === "tutti" ? {} : { attivo: attivo === "attivi" ? ("true" as const) : ("false" as const) }),
    limite: LOOKUP_PAGE,
    dopo: String(cursors.at(-1)!),
  };
  return {
    cerca: search.text,
    setCerca: (v: string) => (search.setText(v), setCursors([0])),
    onKeyDown: (e: KeyboardEvent<HTMLInputElement>) => {
      search.onKeyDown(e);
      if (e.key === "Enter") setCursors([0]);
    },
    attivo,
    setAttivo: (v: ActiveFilter) => (setAttivo(v), setCursors([0])),
    cursors,
    setCursors,
    debounced,
    input,
  };
}

type Lookup = ReturnType<typeof useLookup>;

function Filters({ l, label, testid, fetching }: { l: Lookup; label: string; testid: string; fetching: boolean }) {
  return (
    <>
      <TextInput
        label={label}
        value={l.cerca}
        onChange={(e) => l.setCerca(e.currentTarget.value)}
        onKeyDown={l.onKeyDown}
        autoComplete="off"
        enterKeyHint="search"
        data-testid={testid}
        size="md"
        rightSection={fetching ? <Loader size="xs" /> : null}
      />
      <SegmentedControl
        value={l.attivo}
        onChange={(v) => l.setAttivo(v as ActiveFilter)}
        data={[
          { value: "attivi", label: "Attivi" },
          { value: "disattivati", label: "Disattivati" },
          { value: "tutti", label: "Tutti" },
        ]}
        data-testid="filtro-attivo"
      />
    </>
  );
}

function Pager({ l, altri, cursore, fetching }: { l: Lookup; altri?: boolean; cursore?: number; fetching: boolean }) {
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed">
        Pagina {l.cursors.length}
      </Text>
      <Group gap="xs">
        <Button variant="default" disabled={l.cursors.length === 1} onClick={() => l.setCursors((c) => c.slice(0, -1))}>
          Precedente
        </Button>
        <Button
          variant="default"
          disabled={!altri || fetching || cursore === undefined}
          onClick={() => cursore !== undefined && l.setCursors((c) => [...c, cursore])}
        >
          Successiva
        </Button>
      </Group>
    </Group>
  );
}

/** Plain text, not a badge: a badge in a narrow column is cut to "ATTI…" at 360 px. */
const ActiveBadge = ({ attivo }: { attivo: boolean }) => (
  <Text size="sm" fw={600} c={attivo ? "green.8" : "dimmed"} style={{ whiteSpace: "nowrap" }}>
    {attivo ? "Attivo" : "Disattivato"}
  </Text>
);

/**
 * Articles: search by code, description or EAN (typed in part, or scanned: a variant by its own EAN, the
 * GTIN inside a GS1 code), the active filter, every field; a row opens its detail.
 */
export function ArticlesScreen() {
  const trpc = useTRPC();
  const l = useLookup();
  const [open, setOpen] = useState<number | null>(null);
  const query = useQuery({ ...trpc.feeds.articleLookup.queryOptions(l.input), placeholderData: keepPreviousData });
  const articoli = query.data?.articoli ?? [];
  // A template is never stocked; it is known here when one of its variants is on the page.
  const templates = new Set(articoli.map((a) => a.modello).filter((m) => m !== null));
  const kind = (a: (typeof articoli)[number]): ReactNode =>
    a.modello !== null ? `Variante di ${a.modello}` : templates.has(a.codice) ? "Modello" : "—";
  return (
    <Stack gap="md" maw={1200}>
      <Title order={2}>Articoli</Title>
      <Filters l={l} label="Cerca codice, descrizione o EAN" testid="cerca-articoli" fetching={query.isFetching} />
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      <DataTable
        minWidth={320}
        striped
        highlightOnHover
        verticalSpacing="xs"
        data-testid="tabella-articoli"
        columns={[
          { label: "Codice" },
          { label: "Descrizione", visibleFrom: "sm" },
          { label: "EAN", visibleFrom: "md" },
          { label: "Unità", visibleFrom: "sm" },
          { label: "Lotti", visibleFrom: "md" },
          { label: "Modello / variante", visibleFrom: "md" },
          { label: "Stato" },
        ]}
      >
        {articoli.map((a) => (
          <Fragment key={a.id}>
            <Table.Tr
              onClick={(e) => ownClick(e) || setOpen(open === a.id ? null : a.id)}
              style={{ cursor: "pointer" }}
              data-testid={`articolo-${a.codice}`}
              aria-expanded={open === a.id}
            >
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Text fw={600} size="sm">
                    {a.codice}
                  </Text>
                  <WhereIsButton articolo={a.id} codice={a.codice} />
                </Group>
                <Text size="xs" c="dimmed" hiddenFrom="sm">
                  {a.descrizione}
                </Text>
              </Table.Td>
              <Table.Td visibleFrom="sm">{a.descrizione}</Table.Td>
              <Table.Td visibleFrom="md">{a.ean ?? "—"}</Table.Td>
              <Table.Td visibleFrom="sm">{a.unita}</Table.Td>
              <Table.Td visibleFrom="md">{a.gestione_lotti ? "Sì" : "No"}</Table.Td>
              <Table.Td visibleFrom="md">{kind(a)}</Table.Td>
              <Table.Td>
                <ActiveBadge attivo={a.attivo} />
              </Table.Td>
            </Table.Tr>
            {open === a.id && (
              <Table.Tr data-testid={`dettaglio-${a.codice}`}>
                <Table.Td colSpan={7}>
                  <Stack gap={2}>
                    <Text size="sm">
                      <b>{a.codice}</b> · {a.descrizione}
                    </Text>
                    <Text size="sm">EAN: {a.ean ?? "nessuno"}</Text>
                    <Text size="sm">Unità di misura: {a.unita}</Text>
                    <Text size="sm">Gestione lotti: {a.gestione_lotti ? "sì" : "no"}</Text>
                    <Text size="sm">Modello / variante: {kind(a)}</Text>
                    <Text size="sm">Costo standard: {money(a.costo)}</Text>
                    <Text size="sm">Stato: {a.attivo ? "attivo" : "disattivato (non si ordina, non si riceve, non si vende)"}</Text>
                    <Text size="sm" fw={600} mt="xs">
                      Ubicazioni
                    </Text>
                    <WhereIsList articolo={a.id} />
                    <Text size="sm" fw={600} mt="xs">
                      Prenotazioni
                    </Text>
                    <ArticleHolders articolo={a.id} />
                  </Stack>
                </Table.Td>
              </Table.Tr>
            )}
          </Fragment>
        ))}
      </DataTable>
      {query.isSuccess && articoli.length === 0 && (
        <Text c="dimmed">Nessun articolo{l.debounced ? ` che contenga "${l.debounced}"` : ""}.</Text>
      )}
      <Pager l={l} altri={query.data?.altri} cursore={query.data?.cursore} fetching={query.isFetching} />
    </Stack>
  );
}

/** Suppliers: search by code or name, the active filter. */
export function SuppliersScreen() {
  const trpc = useTRPC();
  const l = useLookup();
  const query = useQuery({ ...trpc.feeds.suppliers.queryOptions(l.input), placeholderData: keepPreviousData });
  const fornitori = query.data?.fornitori ?? [];
  return (
    <Stack gap="md" maw={900}>
      <Title order={2}>Fornitori</Title>
      <Filters l={l} label="Cerca codice o nome" testid="cerca-fornitori" fetching={query.isFetching} />
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      <DataTable
        minWidth={320}
        striped
        verticalSpacing="xs"
        data-testid="tabella-fornitori"
        columns={[{ label: "Codice" }, { label: "Nome" }, { label: "Stato" }]}
      >
        {fornitori.map((f) => (
          <Table.Tr key={f.id} data-testid={`fornitore-${f.codice}`}>
            <Table.Td fw={600}>{f.codice}</Table.Td>
            <Table.Td>{f.nome}</Table.Td>
            <Table.Td>
              <ActiveBadge attivo={f.attivo} />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {query.isSuccess && fornitori.length === 0 && (
        <Text c="dimmed">Nessun fornitore{l.debounced ? ` che contenga "${l.debounced}"` : ""}.</Text>
      )}
      <Pager l={l} altri={query.data?.altri} cursore={query.data?.cursore} fetching={query.isFetching} />
    </Stack>
  );
}
