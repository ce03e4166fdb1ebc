"use client";
import { Alert, Badge, Button, Card, Checkbox, Group, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import { describeError } from "../errors";
import { signal } from "../feedback";
import { day, parseDecimal, qty } from "../format";
import { useRemembered, useWarehouses } from "../hooks";
import { useTRPC, useTRPCClient } from "../trpc";
import { useWrite } from "../write-key";

type Order = SearchOutput["ordini"][number];

interface Draft {
  selected: boolean;
  quantita: string;
  lotto: string;
  scadenza: string;
}

interface Outcome {
  riga: number;
  esito: "registrata" | "rifiutata";
  messaggio: string;
}

/** Expected goods of one supplier, and several rows of one delivery note registered at once. */
export function ReceivingBySupplierScreen() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const suppliers = useQuery(trpc.catalogue.suppliers.queryOptions());
  const { options: warehouseOptions } = useWarehouses();
  const [fornitore, setFornitore] = useState<string | null>(null);
  const [ddt, setDdt] = useRemembered("ddt", "");
  const [magazzino, setMagazzino] = useRemembered<string | null>("magazzino", null);
  const [orders, setOrders] = useState<Order[]>([]);
  const [more, setMore] = useState<{ altri: boolean; cursore: number }>({ altri: false, cursore: 0 });
  const [drafts, setDrafts] = useState<Record<number, Draft>>({});
  const [loading, setLoading] = useState(false);
  const { saving, error, setError, run } = useWrite();
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);

  async function load(id: string, dopo = 0) {
    setLoading(true);
    setError(null);
    try {
      const res = await client.arrivals.search.mutate({ fornitore: Number(id), limite: 20, ...(dopo ? { dopo } : {}) });
      setOrders((old) => (dopo ? [...old, ...res.ordini] : res.ordini));
      setMore({ altri: res.altri, cursore: res.cursore });
      setDrafts((old) => {
        const next = dopo ? { ...old } : {};
        for (const o of res.ordini)
          for (const r of o.righe) next[r.riga] = { selected: false, quantita: qty(r.residua), lotto: "", scadenza: "" };
        return next;
      });
      if (!dopo && res.ordini.length === 0) setError(res.motivo ?? "Nessuna merce attesa da questo fornitore.");
    } catch (e) {
      setError(describeError(e).messaggio);
    } finally {
      setLoading(false);
    }
  }

  const update = (riga: number, patch: Partial<Draft>) => setDrafts((d) => ({ ...d, [riga]: { ...d[riga]!, ...patch } }));
  const selected = Object.entries(drafts).filter(([, d]) => d.selected);

  async function registerSelected() {
    if (saving) return;
    if (!ddt.trim() || !magazzino) {
      setError("Indicare DDT e magazzino prima di registrare.");
      signal("ko");
      return;
    }
    const righe = [];
    for (const [riga, d] of selected) {
      const q = parseDecimal(d.quantita);
      if (q === null || q <= 0) {
        setError(`Quantità non valida sulla riga R${riga}: "${d.quantita}".`);
        signal("ko");
        return;
      }
      righe.push({
        riga: Number(riga),
        quantita: q,
        ...(d.lotto.trim() ? { lotto: d.lotto.trim() } : {}),
        ...(d.scadenza ? { scadenza: d.scadenza } : {}),
      });
    }
    const out = await run({ magazzino: Number(magazzino), ddt: ddt.trim(), righe }, client.arrivals.register.mutate);
    if (!out) return;
    // With `righe` the service always answers per row.
    if (!("righe" in out)) return setError("Risposta inattesa dal servizio.");
    setOutcomes(
      out.righe.map((r) => ({
        riga: r.riga,
        esito: r.esito,
        messaggio: r.esito === "registrata" ? `registrata, residuo ${qty(r.residua)}` : (r.errore?.messaggio ?? "rifiutata"),
      })),
    );
    signal(out.rifiutate > 0 ? "ko" : "ok");
    if (fornitore) await load(fornitore);
  }

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Ricevimento per fornitore</Title>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <Select
          label="Fornitore"
          placeholder="Scegliere il fornitore"
          searchable
          data={(suppliers.data?.fornitori ?? []).map((f) => ({
            value: String(f.id),
            label: `${f.nome} (${f.ordini_aperti} ordini aperti)`,
          }))}
          value={fornitore}
          onChange={(v) => {
            setFornitore(v);
            setOutcomes(null);
            if (v) void load(v);
          }}
          data-testid="campo-fornitore"
        />
        <TextInput label="DDT fornitore" value={ddt} onChange={(e) => setDdt(e.currentTarget.value)} data-testid="campo-ddt" />
        <Select
          label="Magazzino"
          data={warehouseOptions}
          value={magazzino}
          onChange={setMagazzino}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
      </SimpleGrid>

      {error && (
        <Alert color="red" variant="filled" role="alert">
          {error}
        </Alert>
      )}
      {outcomes && (
        <Alert
          color={outcomes.some((o) => o.esito === "rifiutata") ? "orange" : "green"}
          title="Esito della registrazione"
          data-testid="esiti-righe"
        >
          <Stack gap={2}>
            {outcomes.map((o) => (
              <Text key={o.riga} size="sm" c={o.esito === "rifiutata" ? "red.8" : undefined}>
                R{o.riga}: {o.messaggio}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}

      {orders.map((o) => (
        <Card key={o.id} withBorder padding="sm">
          <Group justify="space-between" mb="xs">
            <Text fw={700}>
              Ordine {o.numero} del {day(o.data)}
            </Text>
            <Badge color={o.stato === "parziale" ? "yellow" : "blue"}>{o.stato}</Badge>
          </Group>
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={40} />
                  <Table.Th>Articolo</Table.Th>
                  <Table.Th className="num">Ordinata</Table.Th>
                  <Table.Th className="num">Arrivata</Table.Th>
                  <Table.Th w={110}>Quantità</Table.Th>
                  <Table.Th w={220}>Lotto e scadenza</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {o.righe.map((r) => {
                  const d = drafts[r.riga];
                  if (!d) return null;
                  return (
                    <Table.Tr key={r.riga} data-testid={`riga-${r.riga}`}>
                      <Table.Td>
                        <Checkbox
                          size="md"
                          checked={d.selected}
                          onChange={(e) => update(r.riga, { selected: e.currentTarget.checked })}
                          aria-label={`Seleziona ${r.etichetta}`}
                        />
                      </Table.Td>
                      <Table.Td>
                        <Text fw={700} size="sm">
                          {r.articolo.codice}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {r.etichetta} · {r.descrizione}
                        </Text>
                      </Table.Td>
                      <Table.Td className="num">{qty(r.ordinata)}</Table.Td>
                      <Table.Td className="num">{qty(r.arrivata)}</Table.Td>
                      <Table.Td>
                        <TextInput
                          size="sm"
                          inputMode="decimal"
                          value={d.quantita}
                          onChange={(e) => update(r.riga, { quantita: e.currentTarget.value, selected: true })}
                        />
                      </Table.Td>
                      <Table.Td>
                        {r.chiede_lotto ? (
                          <Group gap={4} wrap="nowrap">
                            <TextInput
                              size="sm"
                              placeholder="Lotto"
                              value={d.lotto}
                              onChange={(e) => update(r.riga, { lotto: e.currentTarget.value })}
                            />
                            <TextInput
                              size="sm"
                              type="date"
                              value={d.scadenza}
                              onChange={(e) => update(r.riga, { scadenza: e.currentTarget.value })}
                            />
                          </Group>
                        ) : (
                          <Text size="xs" c="dimmed">
                            —
                          </Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      ))}
      {more.altri && fornitore && (
        <Button variant="light" onClick={() => void load(fornitore, more.cursore)} loading={loading}>
          Altri ordini
        </Button>
      )}
      {orders.length > 0 && (
        <Group className="no-print" style={{ position: "sticky", bottom: 8 }}>
          <Button
            size="lg"
            onClick={() => void registerSelected()}
            loading={saving}
            disabled={selected.length === 0}
            data-testid="registra-selezionate"
          >
            Registra {selected.length} {selected.length === 1 ? "riga" : "righe"} con il DDT {ddt || "…"}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
