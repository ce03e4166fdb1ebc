"use client";
import { Alert, Badge, Box, Button, Card, Checkbox, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import type { SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { DateField } from "../date-field";
import { describeError } from "../errors";
import { signal } from "../feedback";
import { day, parseDecimal, qty } from "../format";
import { useRemembered, useTypedBeforeStart, useWarehouses } from "../hooks";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";

type Order = SearchOutput["ordini"][number];
type Row = Order["righe"][number];

interface Draft {
  selected: boolean;
  quantita: string;
  lotto: string;
  scadenza: string;
}

interface Outcome {
  riga: number;
  etichetta: string;
  esito: "registrata" | "rifiutata";
  messaggio: string;
}

/** What keeps one chosen row from being registered: said on its card and in the bar, before Registra. */
function rowProblem(row: Row, d: Draft): string | null {
  const q = parseDecimal(d.quantita);
  if (q === null || q <= 0) return `quantità non valida "${d.quantita}"`;
  if (row.chiede_lotto && !d.lotto.trim()) return "manca il lotto";
  return null;
}

function Figure({ label, value, strong }: { label: string; value: string; strong?: boolean }) {
  return (
    <Box>
      <Text size="xs" c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Text fw={strong ? 800 : 600} size="lg" className="num" ta="left" c={strong ? "indigo.7" : undefined}>
        {value}
      </Text>
    </Box>
  );
}

/** One expected row as a card (the scan screen's shape): choose it, check its quantity, its lot and expiry. */
function RowCard({ row, draft, onChange }: { row: Row; draft: Draft; onChange: (patch: Partial<Draft>) => void }) {
  const problem = draft.selected ? rowProblem(row, draft) : null;
  return (
    <Card
      withBorder
      padding="sm"
      data-testid={`riga-${row.riga}`}
      data-scelta={draft.selected || undefined}
      style={
        draft.selected ? { borderColor: "var(--mantine-color-indigo-5)", boxShadow: "0 0 0 1px var(--mantine-color-indigo-5)" } : undefined
      }
    >
      <Stack gap={8}>
        <Checkbox
          size="lg"
          checked={draft.selected}
          onChange={(e) => onChange({ selected: e.currentTarget.checked })}
          aria-label={`Seleziona ${row.etichetta}`}
          label={
            <Text fw={800} size="lg" lh={1.2} style={{ overflowWrap: "anywhere" }}>
              {row.articolo.codice}
            </Text>
          }
          description={`${row.etichetta} · ${row.descrizione}`}
          styles={{ body: { alignItems: "flex-start" } }}
        />
        <SimpleGrid cols={3} spacing="xs">
          <Figure label="Ordinata" value={qty(row.ordinata)} />
          <Figure label="Arrivata" value={qty(row.arrivata)} />
          <Figure label="Residua" value={qty(row.residua)} strong />
        </SimpleGrid>
        <SimpleGrid cols={row.chiede_lotto ? 2 : 1} spacing="xs">
          <TextInput
            label="Quantità arrivata"
            inputMode="decimal"
            value={draft.quantita}
            onChange={(e) => onChange({ quantita: e.currentTarget.value, selected: true })}
            onFocus={(e) => e.currentTarget.select()}
            error={draft.selected && parseDecimal(draft.quantita) === null ? "Non valida" : undefined}
            data-testid="campo-quantita"
          />
          {row.chiede_lotto && (
            <TextInput
              label="Lotto"
              value={draft.lotto}
              onChange={(e) => onChange({ lotto: e.currentTarget.value, selected: true })}
              autoCapitalize="characters"
              autoCorrect="off"
              spellCheck={false}
              error={draft.selected && !draft.lotto.trim() ? "Obbligatorio" : undefined}
              data-testid="campo-lotto"
            />
          )}
        </SimpleGrid>
        {row.chiede_lotto && (
          <DateField
            label="Scadenza (se c'è)"
            value={draft.scadenza}
            onChange={(v) => onChange({ scadenza: v, selected: true })}
            data-testid="campo-scadenza"
          />
        )}
        {problem && (
          <Text size="sm" c="orange.9" fw={600}>
            Da completare: {problem}.
          </Text>
        )}
      </Stack>
    </Card>
  );
}

/**
 * Expected goods of one supplier, and several rows of one delivery note registered at once. Built for
 * the handheld first: a card per row; the warehouse comes from the orders; what is missing (delivery
 * note, warehouse, a quantity, a lot) is said in the bar before Registra, which stays disabled until
 * nothing is.
 */
export function ReceivingBySupplierScreen() {
  const trpc = useTRPC();
  const suppliers = useQuery(trpc.catalogue.suppliers.queryOptions());
  const { options: warehouseOptions, nameOf } = useWarehouses();
  const [fornitore, setFornitore] = useState<string | null>(null);
  const [ddt, setDdt] = useRemembered("ddt", "");
  const ddtRef = useRef<HTMLInputElement>(null);
  useTypedBeforeStart(ddtRef, setDdt);
  const [magazzino, setMagazzino] = useRemembered<string | null>("magazzino", null);
  const [orders, setOrders] = useState<Order[]>([]);
  const [more, setMore] = useState<{ altri: boolean; cursore: number }>({ altri: false, cursore: 0 });
  const [drafts, setDrafts] = useState<Record<number, Draft>>({});
  const searching = useMutation(trpc.arrivals.search.mutationOptions());
  const { saving, error, setError, run } = useWrite((context) => trpc.arrivals.register.mutationOptions({ trpc: { context } }));
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const outcomesRef = useRef<HTMLDivElement>(null);

  async function load(id: string, dopo = 0) {
    setError(null);
    try {
      const res = await searching.mutateAsync({ fornitore: Number(id), limite: 20, ...(dopo ? { dopo } : {}) });
      setOrders((old) => (dopo ? [...old, ...res.ordini] : res.ordini));
      setMore({ altri: res.altri, cursore: res.cursore });
      setDrafts((old) => {
        const next = dopo ? { ...old } : {};
        for (const o of res.ordini)
          for (const r of o.righe) next[r.riga] = { selected: false, quantita: qty(r.residua), lotto: "", scadenza: "" };
        return next;
      });
      // The goods go where the orders send them: one warehouse for all of them is the warehouse.
      const warehouses = new Set(res.ordini.map((o) => o.magazzino));
      if (!dopo && warehouses.size === 1) setMagazzino(String([...warehouses][0]));
      if (!dopo && res.ordini.length === 0) setError(res.motivo ?? "Nessuna merce attesa da questo fornitore.");
    } catch (e) {
      setError(describeError(e).messaggio);
    }
  }

  const rowsById = new Map(orders.flatMap((o) => o.righe.map((r) => [r.riga, { row: r, order: o }] as const)));
  const update = (riga: number, patch: Partial<Draft>) => {
    setDrafts((d) => ({ ...d, [riga]: { ...d[riga]!, ...patch } }));
    // The first row chosen with no warehouse yet: its order's.
    const order = rowsById.get(riga)?.order;
    if (patch.selected && !magazzino && order) setMagazzino(String(order.magazzino));
  };
  const selected = Object.entries(drafts)
    .filter(([, d]) => d.selected)
    .map(([riga, d]) => ({ riga: Number(riga), d, ...rowsById.get(Number(riga))! }))
    .filter((s) => s.row);
  const otherWarehouse = magazzino ? selected.filter((s) => s.order.magazzino !== Number(magazzino)) : [];

  // Everything that keeps Registra from working, said before it is tapped.
  // In full at the top of the screen, and in a few words in the bar beside Registra.
  const missing: string[] = [];
  const missingShort: string[] = [];
  const lack = (full: string, short: string) => {
    missing.push(full);
    missingShort.push(short);
  };
  if (!ddt.trim()) lack("indicare il DDT", "DDT");
  if (!magazzino) lack("scegliere il magazzino", "magazzino");
  if (selected.length === 0) lack("scegliere le righe arrivate (o scriverne la quantità)", "le righe");
  for (const s of selected) {
    const p = rowProblem(s.row, s.d);
    if (p) lack(`${s.row.etichetta} ${s.row.articolo.codice}: ${p}`, `${s.row.etichetta} ${p.startsWith("manca") ? "lotto" : "quantità"}`);
  }

  async function registerSelected() {
    if (saving || missing.length > 0) return;
    const righe = selected.map(({ riga, d }) => ({
      riga,
      quantita: parseDecimal(d.quantita)!,
      ...(d.lotto.trim() ? { lotto: d.lotto.trim() } : {}),
      ...(d.scadenza ? { scadenza: d.scadenza } : {}),
    }));
    const out = await run({ magazzino: Number(magazzino), ddt: ddt.trim(), righe });
    if (!out) return;
    // With `righe` the service always answers per row.
    if (!("righe" in out)) return setError("Risposta inattesa dal servizio.");
    const names = new Map(selected.map((s) => [s.riga, `${s.row.etichetta} ${s.row.articolo.codice}`]));
    setOutcomes(
      out.righe.map((r, i) => {
        // The screen sends well-formed rows: the answer's row is always the one it sent.
        const riga = r.riga ?? selected[i]!.riga;
        return {
          riga,
          etichetta: names.get(riga) ?? `R${riga}`,
          esito: r.esito,
          messaggio: r.esito === "registrata" ? `registrata, residuo ${qty(r.residua)}` : (r.errore?.messaggio ?? "rifiutata"),
        };
      }),
    );
    signal(out.rifiutate > 0 ? "ko" : "ok");
    requestAnimationFrame(() => outcomesRef.current?.scrollIntoView({ block: "start", behavior: "smooth" }));
    if (fornitore) await load(fornitore);
  }

  return (
    <Stack gap="md" maw={1200}>
      <Title order={2}>Ricevimento per fornitore</Title>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <Select
          label="Fornitore"
          placeholder="Scegliere il fornitore"
          searchable
          data={(suppliers.data?.fornitori ?? []).map((f) => ({
            value: String(f.id),
            label: `${f.nome} · ${f.ordini_aperti} ${f.ordini_aperti === 1 ? "ordine aperto" : "ordini aperti"}`,
          }))}
          value={fornitore}
          onChange={(v) => {
            setFornitore(v);
            setOutcomes(null);
            if (v) void load(v);
          }}
          data-testid="campo-fornitore"
        />
        <TextInput
          label="DDT fornitore"
          placeholder="es. DDT-1187"
          ref={ddtRef}
          value={ddt}
          onChange={(e) => setDdt(e.currentTarget.value)}
          error={orders.length > 0 && !ddt.trim() ? "Obbligatorio per registrare" : undefined}
          data-testid="campo-ddt"
        />
        <Select
          label="Magazzino"
          placeholder="Scegliere"
          data={warehouseOptions}
          value={magazzino}
          onChange={setMagazzino}
          allowDeselect={false}
          error={orders.length > 0 && !magazzino ? "Obbligatorio per registrare" : undefined}
          data-testid="campo-magazzino"
        />
      </SimpleGrid>

      {orders.length > 0 && missing.length > 0 && (
        <Text size="sm" c="orange.9" fw={600} data-testid="da-completare">
          Per registrare: {missing.join(" · ")}.
        </Text>
      )}
      {error && (
        <Alert color="red" variant="filled" role="alert">
          {error}
        </Alert>
      )}
      {outcomes && (
        <Alert
          ref={outcomesRef}
          color={outcomes.some((o) => o.esito === "rifiutata") ? "orange" : "green"}
          title="Esito della registrazione"
          // Scrolled into view under the fixed header.
          style={{ scrollMarginTop: 72 }}
          data-testid="esiti-righe"
        >
          <Stack gap={2}>
            {outcomes.map((o) => (
              <Text key={o.riga} size="sm" c={o.esito === "rifiutata" ? "red.8" : undefined}>
                {o.etichetta}: {o.messaggio}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}

      {orders.map((o) => (
        <Stack key={o.id} gap="xs" data-testid={`ordine-${o.numero}`}>
          <Group justify="space-between" gap="xs" wrap="wrap">
            <div>
              <Text fw={800} size="lg">
                Ordine {o.numero}
              </Text>
              <Text size="sm" c="dimmed">
                del {day(o.data)} · magazzino {nameOf(o.magazzino)}
              </Text>
            </div>
            <Badge color={o.stato === "parziale" ? "yellow" : "blue"} size="lg" variant="light">
              {o.stato}
            </Badge>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
            {o.righe.map((r) => {
              const d = drafts[r.riga];
              return d ? <RowCard key={r.riga} row={r} draft={d} onChange={(patch) => update(r.riga, patch)} /> : null;
            })}
          </SimpleGrid>
        </Stack>
      ))}
      {more.altri && fornitore && (
        <Button variant="light" onClick={() => void load(fornitore, more.cursore)} loading={searching.isPending}>
          Altri ordini
        </Button>
      )}
      {orders.length > 0 && (
        <Paper
          className="no-print"
          withBorder
          shadow="md"
          p="xs"
          style={{ position: "sticky", bottom: 0, zIndex: 5 }}
          data-testid="barra-registra"
        >
          {otherWarehouse.length > 0 && (
            <Text size="sm" c="orange.9" mb={6}>
              Attenzione: {otherWarehouse.map((s) => s.row.etichetta).join(", ")} di un ordine destinato a un altro magazzino.
            </Text>
          )}
          {/* One line beside the button: the bar covers as little of the rows as it can. */}
          <Group gap="sm" wrap="nowrap" align="center">
            <Text
              size="sm"
              lh={1.25}
              lineClamp={2}
              fw={missingShort.length ? 600 : 400}
              c={missingShort.length ? "orange.9" : "dimmed"}
              style={{ flex: 1, minWidth: 0, overflowWrap: "anywhere" }}
              data-testid="riepilogo-barra"
            >
              {missingShort.length
                ? `Manca: ${missingShort.join(", ")}`
                : `DDT ${ddt.trim()} · ${magazzino ? nameOf(Number(magazzino)) : ""}`}
            </Text>
            <Button
              size="md"
              onClick={() => void registerSelected()}
              loading={saving}
              disabled={missing.length > 0}
              style={{ flexShrink: 0 }}
              data-testid="registra-selezionate"
            >
              Registra {selected.length} {selected.length === 1 ? "riga" : "righe"}
            </Button>
          </Group>
        </Paper>
      )}
    </Stack>
  );
}
