"use client";
import { ActionIcon, Alert, Card, Grid, Group, Select, Text, TextInput } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { DateField } from "../../date-field";
import { day, qty } from "../../format";
import { useTRPC } from "../../trpc";
import type { Natura } from "./movement-words";

export interface DraftRow {
  articolo: string;
  quantita: string;
  lotto: string;
  scadenza: string;
  prezzo: string;
}

/** An article as a typed code or EAN reads (catalogue.resolve): null when it names none. */
export interface ReadArticle {
  id: number;
  codice: string;
  gestione_lotti: boolean;
  ha_varianti: boolean;
}

/** What a field read (the article, the lot's facts) goes under it, where the eye is after typing. */
const UNDER: ("label" | "input" | "description" | "error")[] = ["label", "input", "description", "error"];

/** An open lot's residual and expiry, as the lot list and the chosen lot show them. */
const lotFacts = (l: { residua: string; scadenza: string | null }) =>
  `residuo ${qty(l.residua)} · ${l.scadenza ? `scad. ${day(l.scadenza)}` : "senza scadenza"}`;

/** The inputs of one path of the form (`righe.0.articolo`): value and change handler. */
type Bind = (path: string) => { value: string; onChange: (e: unknown) => void };

/**
 * One row of a manual movement: the article (code or EAN, typed or scanned), the quantity, the price, and
 * for an article kept by lot the lot: typed with its expiry on a load (a new lot, or more of one), picked
 * on an unload or a transfer from the article's open lots in the warehouse the goods leave, with each lot's
 * residual and expiry, earliest expiry first (GET /articoli/{id}/lotti).
 */
export function MovementRow({
  index,
  natura,
  row,
  article,
  source,
  bind,
  setValue,
  onRemove,
  problem,
}: {
  index: number;
  natura: Natura;
  row: DraftRow;
  /** undefined: not read yet (nothing typed, or the look-up still running). */
  article: ReadArticle | null | undefined;
  /** The warehouse the goods leave (unload: the warehouse; transfer: the origin); null: not chosen yet. */
  source: { id: number; codice: string } | null;
  bind: Bind;
  setValue: (path: string, value: string) => void;
  onRemove?: () => void;
  problem?: string;
}) {
  const trpc = useTRPC();
  const lotted = article?.gestione_lotti === true;
  const picksLot = lotted && natura !== "carico";
  const lots = useQuery({
    ...trpc.lots.listOpen.queryOptions({ id: String(article?.id ?? 0), magazzino: String(source?.id ?? 0) }),
    enabled: picksLot && source !== null,
  });
  const open = lots.data?.lotti ?? [];
  const path = (name: keyof DraftRow) => `righe.${index}.${name}`;
  const found =
    article === null && row.articolo.trim() !== ""
      ? "Nessun articolo con questo codice o EAN"
      : article?.ha_varianti
        ? `${article.codice} ha varianti: indicare la variante`
        : undefined;
  const note = article && !found ? `${article.codice}${lotted ? " · gestito a lotti" : ""}` : undefined;

  let lotField = null;
  if (lotted && natura === "carico") {
    lotField = (
      <>
        <Grid.Col span={{ base: 6, sm: 2 }}>
          <TextInput label="Lotto" withAsterisk {...bind(path("lotto"))} data-testid={`riga-${index}-lotto`} />
        </Grid.Col>
        <Grid.Col span={{ base: 6, sm: 2 }}>
          <DateField
            label="Scadenza"
            value={row.scadenza}
            onChange={(v) => setValue(path("scadenza"), v)}
            data-testid={`riga-${index}-scadenza`}
          />
        </Grid.Col>
      </>
    );
  } else if (picksLot) {
    const empty = source !== null && lots.isSuccess && open.length === 0;
    const chosen = open.find((l) => l.lotto === row.lotto);
    lotField = (
      <Grid.Col span={{ base: 12, sm: 4 }}>
        <Select
          label={source ? `Lotto (da ${source.codice})` : "Lotto"}
          withAsterisk
          placeholder={source ? (lots.isPending ? "Lettura dei lotti…" : "Scegliere il lotto") : "Scegliere prima il magazzino"}
          disabled={source === null || empty}
          // The field shows the lot's code, its residual and expiry under it: the whole line does not fit at 360 px.
          data={open.map((l) => ({ value: l.lotto, label: l.lotto }))}
          renderOption={({ option }) => {
            const l = open.find((x) => x.lotto === option.value);
            return l ? `${l.lotto} · ${lotFacts(l)}` : option.label;
          }}
          description={chosen ? lotFacts(chosen) : undefined}
          inputWrapperOrder={UNDER}
          value={chosen ? chosen.lotto : null}
          onChange={(v) => setValue(path("lotto"), v ?? "")}
          error={
            empty
              ? `Nessun lotto di ${article.codice} con giacenza in ${source.codice}`
              : lots.isError
                ? "Lotti non letti: riprovare"
                : undefined
          }
          data-testid={`riga-${index}-lotto`}
        />
      </Grid.Col>
    );
  }

  return (
    <Card withBorder padding="xs" data-testid={`riga-${index}`}>
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={700}>
          Riga {index + 1}
        </Text>
        {onRemove && (
          <ActionIcon size="lg" variant="light" color="red" aria-label={`Togli la riga ${index + 1}`} onClick={onRemove}>
            ×
          </ActionIcon>
        )}
      </Group>
      <Grid gutter="xs">
        <Grid.Col span={{ base: 12, sm: lotField ? 4 : 8 }}>
          <TextInput
            label="Articolo (codice o EAN)"
            {...bind(path("articolo"))}
            description={note}
            inputWrapperOrder={UNDER}
            error={found}
            data-testid={`riga-${index}-articolo`}
          />
        </Grid.Col>
        {lotField}
        <Grid.Col span={{ base: 6, sm: 2 }}>
          <TextInput label="Quantità" inputMode="decimal" {...bind(path("quantita"))} data-testid={`riga-${index}-quantita`} />
        </Grid.Col>
        <Grid.Col span={{ base: 6, sm: 2 }}>
          <TextInput
            label="Prezzo"
            inputMode="decimal"
            placeholder="suggerito"
            {...bind(path("prezzo"))}
            data-testid={`riga-${index}-prezzo`}
          />
        </Grid.Col>
      </Grid>
      {problem && (
        <Alert color="red" variant="light" mt="xs" p="xs" data-testid={`problema-riga-${index}`}>
          {problem}
        </Alert>
      )}
    </Card>
  );
}
