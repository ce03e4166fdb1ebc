"use client";
import { Badge, Button, Card, Group, Image, Modal, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useQueries, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { FillRateOutput } from "../../server/modules/notices/notices.schemas";
import { DataTable } from "../data-table";
import { count, day, qty } from "../format";
import { useTRPC } from "../trpc";

const STATE_COLOR = { atteso: "blue", in_ricevimento: "yellow", ricevuto: "green" } as const;
const REASON_COLOR: Record<string, string> = { mancante: "#e8590c", danneggiato: "#c92a2a", errato: "#862e9c", eccedente: "#1971c2" };

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const shifted = (days: number) => isoDay(new Date(Date.now() + days * 86_400_000));

/**
 * Each supplier's fill rate over the period as bars: announced (grey) and received (green) on one scale, the
 * rate beside them, the differences by reason under. A small SVG: nothing here needs a chart library.
 */
function FillRateChart({ rows }: { rows: FillRateOutput["fornitori"] }) {
  if (rows.length === 0) return <Text c="dimmed">Nessun avviso nel periodo.</Text>;
  const max = Math.max(...rows.map((r) => Math.max(Number(r.annunciata), Number(r.ricevuta))), 1);
  const bar = 16;
  const rowHeight = 2 * bar + 26;
  return (
    <Stack gap={4} data-testid="grafico-riempimento">
      <svg
        viewBox={`0 0 320 ${rows.length * rowHeight}`}
        width={480}
        style={{ maxWidth: "100%", height: "auto" }}
        role="img"
        aria-label="Tasso di riempimento per fornitore"
      >
        {rows.map((r, i) => {
          const y = i * rowHeight;
          // The service's rate (GET /differenze-ricevimento/tasso-riempimento reads the same), as a percentage.
          const rate = r.tasso === null ? 0 : Math.round(Number(r.tasso) * 100);
          return (
            <g key={r.fornitore.id}>
              <text x={0} y={y + 12} fontSize={12} fontWeight={600}>
                {r.fornitore.codice} · {rate}%
              </text>
              <rect x={0} y={y + 16} width={(Number(r.annunciata) / max) * 200} height={bar} fill="#adb5bd" />
              <text x={(Number(r.annunciata) / max) * 200 + 4} y={y + 28} fontSize={11}>
                {qty(r.annunciata)} annunciati
              </text>
              <rect x={0} y={y + 16 + bar} width={(Number(r.ricevuta) / max) * 200} height={bar} fill="#2f9e44" />
              <text x={(Number(r.ricevuta) / max) * 200 + 4} y={y + 28 + bar} fontSize={11}>
                {qty(r.ricevuta)} ricevuti
              </text>
            </g>
          );
        })}
      </svg>
      {rows.map((r) =>
        Object.keys(r.differenze).length === 0 ? null : (
          <Group key={r.fornitore.id} gap={6}>
            <Text size="sm" fw={600}>
              {r.fornitore.codice}:
            </Text>
            {Object.entries(r.differenze).map(([motivo, q]) => (
              <Badge key={motivo} color={REASON_COLOR[motivo] ?? "gray"} variant="light">
                {motivo} {qty(q)}
              </Badge>
            ))}
          </Group>
        ),
      )}
    </Stack>
  );
}

/**
 * A difference's photos (the receiving screen takes them): loaded only when asked for, each as a thumbnail
 * that opens the image large. The bytes come through tRPC in base64 (the REST read is for API keys).
 */
function DifferencePhotos({ id, count }: { id: number; count: number }) {
  const trpc = useTRPC();
  const [open, setOpen] = useState(false);
  const [large, setLarge] = useState<string | null>(null);
  // Photos are numbered 1..count in the order they were sent.
  const numbers = Array.from({ length: count }, (_, i) => i + 1);
  const photos = useQueries({
    queries: numbers.map((n) => ({
      ...trpc.notices.differencePhoto.queryOptions({ differenza: id, n }),
      enabled: open,
      staleTime: Number.POSITIVE_INFINITY,
    })),
  });
  if (count === 0) return <Text c="dimmed">—</Text>;
  if (!open)
    return (
      <Button size="compact-sm" variant="light" onClick={() => setOpen(true)} data-testid={`foto-${id}`}>
        Foto ({count})
      </Button>
    );
  return (
    <Group gap={4} data-testid={`miniature-${id}`}>
      {numbers.map((n) => {
        const p = photos[n - 1]!;
        return p.data ? (
          <button
            key={n}
            type="button"
            onClick={() => setLarge(`data:${p.data.tipo};base64,${p.data.dati}`)}
            style={{ padding: 0, border: 0, background: "none", cursor: "zoom-in" }}
            aria-label={`Foto ${n} della differenza ${id}: ingrandire`}
          >
            <Image src={`data:${p.data.tipo};base64,${p.data.dati}`} w={48} h={48} fit="cover" radius="sm" alt={`Foto ${n}`} />
          </button>
        ) : (
          <Text key={n} size="xs" c={p.isError ? "red" : "dimmed"}>
            {p.isError ? `foto ${n} non leggibile` : "…"}
          </Text>
        );
      })}
      <Modal opened={large !== null} onClose={() => setLarge(null)} title={`Differenza ${id}`} size="xl">
        {large && <Image src={large} alt={`Foto della differenza ${id}`} fit="contain" mah="75vh" />}
      </Modal>
    </Group>
  );
}

/** The manager's view of section 12: suppliers' fill rate, the notices with their pallets' state, the differences. */
export function NoticesScreen() {
  const trpc = useTRPC();
  const [da, setDa] = useState(shifted(-30));
  const [a, setA] = useState(shifted(30));
  const valid = /^\d{4}-\d{2}-\d{2}$/.test(da) && /^\d{4}-\d{2}-\d{2}$/.test(a) && da <= a;
  const rates = useQuery({ ...trpc.notices.fillRates.queryOptions({ da, a }), enabled: valid });
  const notices = useQuery(trpc.notices.list.queryOptions({}));
  const differences = useQuery(trpc.notices.differences.queryOptions({}));
  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Avvisi e differenze</Title>

      <Card withBorder padding="sm">
        <Stack gap="sm">
          <Group justify="space-between" align="flex-end">
            <Title order={4}>Riempimento per fornitore</Title>
            <Group gap="xs">
              <TextInput label="Dal" value={da} onChange={(e) => setDa(e.currentTarget.value)} w={130} />
              <TextInput
                label="Al"
                value={a}
                onChange={(e) => setA(e.currentTarget.value)}
                w={130}
                error={valid ? undefined : "Periodo non valido"}
              />
            </Group>
          </Group>
          <FillRateChart rows={rates.data?.fornitori ?? []} />
        </Stack>
      </Card>

      <Title order={4}>Differenze al ricevimento</Title>
      <DataTable
        minWidth={800}
        data-testid="tabella-differenze"
        columns={[
          { label: "Articolo", main: true },
          { label: "Motivo" },
          { label: "Quantità", num: true },
          { label: "Attesa", num: true },
          { label: "Ricevuta", num: true },
          { label: "Fornitore" },
          { label: "Collo" },
          { label: "Data" },
          { label: "Nota", wide: true },
          { label: "Foto" },
        ]}
      >
        {(differences.data?.differenze ?? [])
          .slice()
          .reverse()
          .map((d) => (
            <Table.Tr key={d.id} data-testid={`differenza-${d.id}`} style={d.annullata ? { opacity: 0.5 } : undefined}>
              <Table.Td>{d.articolo.codice}</Table.Td>
              <Table.Td>
                <Badge color={REASON_COLOR[d.motivo] ?? "gray"} variant="light" data-testid="motivo">
                  {d.annullata ? `${d.motivo} (annullata)` : d.motivo}
                </Badge>
              </Table.Td>
              <Table.Td className="num" data-testid="quantita">
                {qty(d.quantita)}
              </Table.Td>
              <Table.Td className="num">{d.attesa === null ? "—" : qty(d.attesa)}</Table.Td>
              <Table.Td className="num">{qty(d.ricevuta)}</Table.Td>
              <Table.Td>{d.fornitore.codice}</Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>{d.sscc ?? "—"}</Table.Td>
              <Table.Td>{day(d.data)}</Table.Td>
              <Table.Td>{d.nota ?? ""}</Table.Td>
              <Table.Td>
                <DifferencePhotos id={d.id} count={d.foto} />
              </Table.Td>
            </Table.Tr>
          ))}
      </DataTable>

      <Title order={4}>Avvisi di spedizione</Title>
      <DataTable
        minWidth={700}
        data-testid="tabella-avvisi"
        columns={[
          { label: "Avviso", main: true },
          { label: "Fornitore" },
          { label: "Previsto" },
          { label: "Stato" },
          { label: "Colli", wide: true },
        ]}
      >
        {(notices.data?.avvisi ?? []).map((n) => (
          <Table.Tr key={n.id} data-testid={`avviso-${n.numero}`}>
            <Table.Td>{n.numero}</Table.Td>
            <Table.Td>{n.fornitore.codice}</Table.Td>
            <Table.Td>{day(n.data_prevista)}</Table.Td>
            <Table.Td>
              <Badge color={STATE_COLOR[n.stato]}>{n.stato.replace("_", " ")}</Badge>
            </Table.Td>
            <Table.Td>
              <Stack gap={2}>
                {n.colli.map((c) => (
                  <Text key={c.sscc} size="sm" style={{ overflowWrap: "anywhere" }}>
                    {c.sscc} · {count(c.righe.length, "riga", "righe")} · {c.stato}
                  </Text>
                ))}
              </Stack>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
    </Stack>
  );
}
