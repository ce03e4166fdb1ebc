"use client";
import { Alert, Badge, Button, Group, Loader, Modal, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { OrderDetail } from "@/server/modules/orders/orders.schemas";
import { day, money, qty } from "../format";
import { useSearchText } from "../search-text";
import { roleAtLeast, useUser } from "../session-context";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";
import { OrderRowArrivals } from "./order-arrivals";

const STATE_COLOR = { aperto: "blue", parziale: "yellow", evaso: "gray" } as const;
const STATE_LABEL = { aperto: "Aperto", parziale: "Parziale", evaso: "Evaso" } as const;

type StateFilter = "attesi" | "aperto" | "parziale" | "evaso" | "tutti";
type Row = OrderDetail["righe"][number];

/**
 * Purchase orders: search by number or supplier (or what the dock scans: an article's EAN, an R<riga>
 * label), a state filter, and for each order its rows (ordered, arrived, closed, remaining, price, the
 * arrivals standing on the row and the closing reason). A
 * `responsabile` closes a row's remainder short from here; every order keeps its labels page.
 */
export function OrdersScreen() {
  const trpc = useTRPC();
  // A number or a supplier typed, or an article's EAN / GS1 or an R<riga> label scanned (then Enter).
  const search = useSearchText();
  const [stato, setStato] = useState<StateFilter>("attesi");
  const [open, setOpen] = useState<number | null>(null);
  const query = useQuery({
    ...trpc.orders.list.queryOptions({
      ...(search.applied ? { cerca: search.applied } : {}),
      ...(stato === "tutti" ? { includi_evasi: true } : stato === "attesi" ? {} : { stato }),
    }),
    placeholderData: keepPreviousData,
  });
  const ordini = query.data?.ordini ?? [];
  return (
    <Stack gap="md" maw={1000}>
      <Title order={2}>Ordini d&apos;acquisto</Title>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <TextInput
          label="Cerca numero, fornitore, EAN o etichetta R"
          value={search.text}
          onChange={(e) => search.setText(e.currentTarget.value)}
          onKeyDown={search.onKeyDown}
          autoComplete="off"
          enterKeyHint="search"
          data-testid="cerca-ordini"
          size="md"
        />
        <Select
          label="Stato"
          value={stato}
          onChange={(v) => v && setStato(v as StateFilter)}
          allowDeselect={false}
          size="md"
          data-testid="filtro-stato"
          data={[
            { value: "attesi", label: "Da ricevere (aperti e parziali)" },
            { value: "aperto", label: "Aperti" },
            { value: "parziale", label: "Parziali" },
            { value: "evaso", label: "Evasi" },
            { value: "tutti", label: "Tutti" },
          ]}
        />
      </SimpleGrid>
      {query.isError && <Alert color="red">Impossibile leggere gli ordini: riprovare.</Alert>}
      {query.isSuccess && ordini.length === 0 && <Text c="dimmed">Nessun ordine con questi filtri.</Text>}
      <Stack gap="sm" data-testid="tabella-ordini">
        {ordini.map((o) => (
          <Paper key={o.id} withBorder p="sm" data-testid={`ordine-${o.numero}`}>
            <Group justify="space-between" align="start" wrap="wrap" gap="xs">
              <div style={{ minWidth: 0 }}>
                <Group gap="xs">
                  <Text fw={700} size="lg">
                    {o.numero}
                  </Text>
                  <Badge color={STATE_COLOR[o.stato]} variant="light">
                    {STATE_LABEL[o.stato]}
                  </Badge>
                </Group>
                <Text size="sm">{o.fornitore.nome}</Text>
                <Text size="xs" c="dimmed">
                  {day(o.data)} · magazzino {o.magazzino.codice} · {o.righe} {o.righe === 1 ? "riga" : "righe"}
                </Text>
              </div>
              <Group gap="xs">
                <Button
                  size="sm"
                  variant={open === o.id ? "filled" : "default"}
                  onClick={() => setOpen(open === o.id ? null : o.id)}
                  aria-expanded={open === o.id}
                  data-testid={`righe-${o.numero}`}
                >
                  {open === o.id ? "Nascondi righe" : "Righe"}
                </Button>
                <Button component={Link} href={`/ordini/${o.id}/etichette`} size="sm" variant="light" data-testid={`etichette-${o.numero}`}>
                  Etichette
                </Button>
              </Group>
            </Group>
            {open === o.id && <OrderRows id={o.id} />}
          </Paper>
        ))}
      </Stack>
    </Stack>
  );
}

function OrderRows({ id }: { id: number }) {
  const trpc = useTRPC();
  const user = useUser();
  const canClose = roleAtLeast(user, "responsabile");
  const detail = useQuery(trpc.orders.detail.queryOptions({ id }));
  const [closing, setClosing] = useState<Row | null>(null);
  if (detail.isPending) return <Loader size="sm" mt="sm" />;
  if (detail.isError) return <Alert color="red">Impossibile leggere le righe dell&apos;ordine: riprovare.</Alert>;
  const order = detail.data;
  return (
    <Stack gap="xs" mt="sm">
      {order.righe.map((r) => (
        <Paper key={r.riga} withBorder p="xs" bg="var(--mantine-color-gray-0)" data-testid={`riga-${r.numero_riga}`}>
          <Text size="xs" c="dimmed">
            Riga {r.numero_riga} · {r.etichetta}
          </Text>
          <Text fw={700} style={{ overflowWrap: "anywhere" }}>
            {r.articolo.codice}
          </Text>
          <Text size="sm" lineClamp={2}>
            {r.articolo.descrizione}
          </Text>
          <SimpleGrid cols={{ base: 3, sm: 5 }} spacing="xs" verticalSpacing={4} mt={6}>
            <Figure label="Ordinata" value={`${qty(r.ordinata)} ${r.articolo.unita}`} />
            <Figure label="Arrivata" value={qty(r.arrivata)} testid={`arrivata-${r.numero_riga}`} />
            <Figure label="Chiusa" value={qty(r.chiusa)} testid={`chiusa-${r.numero_riga}`} />
            <Figure label="Residua" value={qty(r.residua)} testid={`residua-${r.numero_riga}`} strong />
            <Figure label="Prezzo" value={money(r.prezzo)} />
          </SimpleGrid>
          <OrderRowArrivals row={r} />
          {Number(r.chiusa) > 0 && (
            <Text size="xs" mt={4} c="orange.8" data-testid={`motivo-${r.numero_riga}`}>
              Chiusa senza consegna {qty(r.chiusa)}
              {r.motivo_chiusura ? `: ${r.motivo_chiusura}` : " (nessun motivo indicato)"}
            </Text>
          )}
          {canClose && Number(r.residua) > 0 && order.stato !== "evaso" && (
            <Group justify="flex-end" mt="xs">
              <Button
                color="orange"
                variant="light"
                w={{ base: "100%", sm: "auto" }}
                onClick={() => setClosing(r)}
                data-testid={`chiudi-${r.numero_riga}`}
              >
                Chiudi residuo ({qty(r.residua)} {r.articolo.unita})
              </Button>
            </Group>
          )}
        </Paper>
      ))}
      {closing && <CloseRowDialog order={order} row={closing} onClose={() => setClosing(null)} />}
    </Stack>
  );
}

function Figure({ label, value, testid, strong }: { label: string; value: string; testid?: string; strong?: boolean }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={strong ? 700 : 500} className="num" ta="left" data-testid={testid}>
        {value}
      </Text>
    </div>
  );
}

/** Confirms closing a row's remainder short, with an optional reason; the write carries its Idempotency-Key. */
function CloseRowDialog({ order, row, onClose }: { order: OrderDetail; row: Row; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [motivo, setMotivo] = useState("");
  const { saving, error, run } = useWrite((context) => trpc.orders.close.mutationOptions({ trpc: { context } }));
  async function confirm() {
    const text = motivo.trim();
    const out = await run({ id: String(order.id), righe: [row.numero_riga], ...(text ? { motivo: text } : {}) });
    if (!out) return;
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.orders.detail.queryKey({ id: order.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.orders.list.pathKey() }),
    ]);
    onClose();
  }
  return (
    <Modal opened onClose={onClose} title="Chiudere il residuo?" centered>
      <Stack gap="sm">
        <Text size="sm">
          Ordine <b>{order.numero}</b>, riga {row.numero_riga} ({row.articolo.codice}): i <b>{qty(row.residua)}</b> {row.articolo.unita} non
          ancora arrivati non saranno più attesi. La riga non risponderà più alla lettura e il residuo esce da &laquo;in arrivo&raquo;.
        </Text>
        <TextInput
          label="Motivo (facoltativo)"
          placeholder="Per esempio: fornitore non consegna il residuo"
          value={motivo}
          onChange={(e) => setMotivo(e.currentTarget.value)}
          maxLength={500}
          data-testid="motivo-chiusura"
        />
        {error && (
          <Alert color="red" data-testid="errore-chiusura">
            {error}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
          <Button variant="default" onClick={onClose} disabled={saving} fullWidth>
            Annulla
          </Button>
          <Button color="orange" onClick={confirm} loading={saving} fullWidth data-testid="conferma-chiusura">
            Chiudi residuo
          </Button>
        </SimpleGrid>
      </Stack>
    </Modal>
  );
}

export function PrintButton() {
  return (
    <Button size="lg" onClick={() => window.print()} className="no-print" data-testid="stampa">
      Stampa
    </Button>
  );
}
