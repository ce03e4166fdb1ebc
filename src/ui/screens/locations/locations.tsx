"use client";
import { Alert, Button, Group, Loader, SegmentedControl, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import type { ScreenLocationsInput } from "@/server/modules/locations/locations-stock.schemas";
import { DataTable } from "../../data-table";
import { describeError } from "../../errors";
import { count, day, qty, warehouseLabel } from "../../format";
import { useTRPC } from "../../trpc";

type Active = "attive" | "disattivate" | "tutte";
type Kind = NonNullable<ScreenLocationsInput["tipo"]>;

/** The first page the screen asks (and the page prefetches): the first warehouse that manages locations. */
export const FIRST_LOCATIONS = { attiva: "true", limite: "50", dopo: "0" } as const;

/** The label of a location (section 13), as PDF in a new tab: the browser prints it (the session's address: /api/v1 reads no cookies). */
export const locationLabelHref = (magazzino: number, codice: string) =>
  `/api/etichette/ubicazione?${new URLSearchParams({ magazzino: String(magazzino), ubicazione: codice, formato: "pdf" })}`;

/**
 * A warehouse's locations: search by code or description, type, active; what each holds (rows and
 * articles above zero), expanded to its rows as GET /giacenze-ubicazioni reads them; its label.
 */
export function LocationsScreen() {
  const trpc = useTRPC();
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [cerca, setCerca] = useState("");
  const [debounced] = useDebouncedValue(cerca.trim(), 300);
  const [tipo, setTipo] = useState<Kind | null>(null);
  const [attiva, setAttiva] = useState<Active>("attive");
  const [cursors, setCursors] = useState<number[]>([0]);
  const [open, setOpen] = useState<string | null>(null);
  const restart = () => (setCursors([0]), setOpen(null));
  const input = {
    ...(magazzino ? { magazzino } : {}),
    ...(debounced ? { cerca: debounced } : {}),
    ...(tipo ? { tipo } : {}),
    ...(attiva === "tutte" ? {} : { attiva: attiva === "attive" ? ("true" as const) : ("false" as const) }),
    limite: FIRST_LOCATIONS.limite,
    dopo: String(cursors.at(-1)!),
  };
  const query = useQuery({ ...trpc.locationsStock.screenLocations.queryOptions(input), placeholderData: keepPreviousData });
  const data = query.data;
  const shown = data?.magazzino ?? null;
  const ubicazioni = data?.ubicazioni ?? [];

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Ubicazioni</Title>
      {data && data.magazzini.length === 0 && (
        <Alert color="gray" data-testid="nessun-magazzino-ubicazioni">
          Nessun magazzino gestisce le ubicazioni: si attivano dall'anagrafica del magazzino (gestione ubicazioni e ubicazione di
          ricevimento).
        </Alert>
      )}
      <SimpleGrid cols={{ base: 2, md: 3 }} spacing="sm">
        <Select
          label="Magazzino"
          data={(data?.magazzini ?? []).map((m) => ({ value: String(m.id), label: warehouseLabel(m) }))}
          value={shown === null ? null : String(shown)}
          onChange={(v) => (setMagazzino(v), restart())}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <Select
          label="Tipo"
          placeholder="Tutti"
          data={[
            { value: "ricevimento", label: "Ricevimento" },
            { value: "stoccaggio", label: "Stoccaggio" },
            { value: "quarantena", label: "Quarantena" },
          ]}
          value={tipo}
          onChange={(v) => (setTipo(v as Kind | null), restart())}
          clearable
          data-testid="campo-tipo"
        />
        <TextInput
          label="Cerca codice o descrizione"
          value={cerca}
          onChange={(e) => (setCerca(e.currentTarget.value), restart())}
          autoComplete="off"
          enterKeyHint="search"
          data-testid="cerca-ubicazioni"
          rightSection={query.isFetching ? <Loader size="xs" /> : null}
        />
      </SimpleGrid>
      {/* A row of its own: three labels do not fit half of a handheld's width. */}
      <SegmentedControl
        value={attiva}
        onChange={(v) => (setAttiva(v as Active), restart())}
        data={[
          { value: "attive", label: "Attive" },
          { value: "disattivate", label: "Disattivate" },
          { value: "tutte", label: "Tutte" },
        ]}
        maw={420}
        data-testid="filtro-attiva"
      />
      {query.error && <Alert color="red">{describeError(query.error).messaggio}</Alert>}
      <DataTable
        minWidth={320}
        striped
        verticalSpacing="xs"
        data-testid="tabella-ubicazioni"
        columns={[{ label: "Codice" }, { label: "Tipo" }, { label: "Contenuto" }, { label: "Stato" }, { key: "azioni", wide: true }]}
      >
        {ubicazioni.map((u) => (
          <Fragment key={u.id}>
            <Table.Tr data-testid={`ubicazione-${u.codice}`}>
              <Table.Td>
                <Text fw={700} size="sm">
                  {u.codice}
                </Text>
                {u.descrizione && (
                  <Text size="xs" c="dimmed">
                    {u.descrizione}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>{u.tipo.charAt(0).toUpperCase() + u.tipo.slice(1)}</Table.Td>
              <Table.Td data-testid="contenuto">
                {u.righe === 0 ? "Vuota" : `${count(u.articoli, "articolo", "articoli")}, ${count(u.righe, "riga", "righe")}`}
              </Table.Td>
              <Table.Td>
                <Text size="sm" fw={600} c={u.attiva ? "green.8" : "dimmed"}>
                  {u.attiva ? "Attiva" : "Disattivata"}
                </Text>
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  <Button
                    size="xs"
                    variant={open === u.codice ? "filled" : "light"}
                    disabled={u.righe === 0}
                    onClick={() => setOpen(open === u.codice ? null : u.codice)}
                    aria-expanded={open === u.codice}
                    data-testid={`apri-${u.codice}`}
                  >
                    {open === u.codice ? "Chiudi" : "Cosa contiene"}
                  </Button>
                  {shown !== null && (
                    <Button
                      size="xs"
                      variant="default"
                      component="a"
                      href={locationLabelHref(shown, u.codice)}
                      target="_blank"
                      rel="noopener"
                      data-testid={`etichetta-${u.codice}`}
                    >
                      Etichetta
                    </Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
            {open === u.codice && shown !== null && (
              <Table.Tr data-testid={`contenuto-${u.codice}`}>
                <Table.Td colSpan={5}>
                  <LocationContents magazzino={shown} ubicazione={u.codice} />
                </Table.Td>
              </Table.Tr>
            )}
          </Fragment>
        ))}
      </DataTable>
      {query.isSuccess && shown !== null && ubicazioni.length === 0 && (
        <Text c="dimmed">Nessuna ubicazione{debounced ? ` che contenga "${debounced}"` : ""}.</Text>
      )}
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Pagina {cursors.length}
        </Text>
        <Group gap="xs">
          <Button variant="default" disabled={cursors.length === 1} onClick={() => (setCursors((c) => c.slice(0, -1)), setOpen(null))}>
            Precedente
          </Button>
          <Button
            variant="default"
            disabled={!data?.altri || query.isFetching}
            onClick={() => data && (setCursors((c) => [...c, data.cursore]), setOpen(null))}
          >
            Successiva
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

/** A location's rows above zero, as GET /giacenze-ubicazioni lists them (one per article and lot). */
function LocationContents({ magazzino, ubicazione }: { magazzino: number; ubicazione: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.locationsStock.list.queryOptions({ magazzino: String(magazzino), ubicazione, limite: "500" }));
  if (query.isLoading) return <Loader size="xs" />;
  if (query.error) return <Text c="red">{describeError(query.error).messaggio}</Text>;
  const rows = query.data?.giacenze ?? [];
  return (
    <Stack gap={4}>
      {rows.map((r) => (
        <Group key={r.id} justify="space-between" wrap="nowrap" gap="xs" data-testid={`riga-${r.id}`}>
          <div>
            <Text size="sm" fw={600}>
              {r.articolo.codice}
            </Text>
            {r.lotto !== null && (
              <Text size="xs" c="dimmed">
                lotto {r.lotto}
                {r.scadenza ? `, scad. ${day(r.scadenza)}` : ""}
              </Text>
            )}
          </div>
          <Text size="sm" fw={700} className="num" data-testid="quantita">
            {qty(r.quantita)}
          </Text>
        </Group>
      ))}
      {query.data?.altri && (
        <Text size="xs" c="dimmed">
          Sono mostrate le prime 500 righe.
        </Text>
      )}
    </Stack>
  );
}
