"use client";
import { Alert, Badge, Button, Group, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { describeWriteError } from "../errors";
import { instant } from "../format";
import { DataTable } from "../data-table";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";
import { AdminLog } from "./admin-log";
import { type EditablePrinter, PRINTER_SIZES as SIZES, PrinterEdit } from "./printer-edit";

const STATE: Record<string, { color: string; label: string }> = {
  in_coda: { color: "blue", label: "in coda" },
  in_invio: { color: "blue", label: "in invio" },
  stampata: { color: "green", label: "stampata" },
  fallita: { color: "red", label: "fallita" },
};

/** What a print job printed, in a few words. */
function labelWords(e: Record<string, unknown>): string {
  if (e.tipo === "lotto") return `lotto ${String(e.lotto)} (articolo ${String(e.articolo)})`;
  if (e.tipo === "collo") return `collo ${String(e.sscc)}`;
  if (e.tipo === "ubicazione") return `ubicazione ${String(e.ubicazione ?? `${String(e.da)}..${String(e.a)}`)}`;
  if (e.tipo === "riga") return `righe dell'ordine ${String(e.ordine)}${e.riga ? `, riga ${String(e.riga)}` : ""}`;
  return String(e.tipo ?? "");
}

/**
 * /stampanti: the network label printers (ZPL over TCP) and the latest print jobs. Only an administrator
 * adds, changes or deactivates a printer (the service will connect to its address; the administrative log
 * keeps it; a deactivated printer stays listed, greyed, and receives nothing); a failed job
 * is reprinted by a person ("Ristampa"), since its outcome may be unknown.
 */
export function PrintersScreen() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const printers = useQuery(trpc.printers.list.queryOptions({}));
  const jobs = useQuery({ ...trpc.printers.recent.queryOptions({ limite: 30 }), refetchInterval: 2000 });
  const [nome, setNome] = useState("");
  const [indirizzo, setIndirizzo] = useState("");
  const [dimensione, setDimensione] = useState<(typeof SIZES)[number]>("100x50");
  const adding = useWrite((context) => trpc.printers.add.mutationOptions({ trpc: { context } }));
  const reprint = useMutation(trpc.printers.reprint.mutationOptions());
  const [reprintError, setReprintError] = useState<string | null>(null);
  const [editing, setEditing] = useState<EditablePrinter | null>(null);

  function refreshPrinters() {
    void client.invalidateQueries({ queryKey: trpc.printers.list.queryKey() });
    void client.invalidateQueries({ queryKey: trpc.printers.recent.queryKey() });
    void client.invalidateQueries({ queryKey: trpc.audit.list.queryKey() });
  }

  async function add() {
    const out = await adding.run({ nome, indirizzo, dimensione });
    if (!out) return;
    setNome("");
    setIndirizzo("");
    void client.invalidateQueries({ queryKey: trpc.printers.list.queryKey() });
    void client.invalidateQueries({ queryKey: trpc.audit.list.queryKey() });
  }

  return (
    <Stack gap="lg" maw={1000}>
      <Title order={2}>Stampanti di etichette</Title>
      <Stack gap="xs">
        <Text size="sm" c="dimmed">
          Stampanti di rete ZPL (Zebra e compatibili), raggiunte in TCP all&apos;indirizzo indicato (porta 9100 se omessa).
        </Text>
        <Group align="end" gap="sm" wrap="wrap">
          <TextInput label="Nome" value={nome} onChange={(e) => setNome(e.currentTarget.value)} w={200} data-testid="stampante-nome" />
          <TextInput
            label="Indirizzo (host:porta)"
            placeholder="192.168.1.50:9100"
            value={indirizzo}
            onChange={(e) => setIndirizzo(e.currentTarget.value)}
            w={220}
            data-testid="stampante-indirizzo"
          />
          <Select
            label="Etichette (mm)"
            data={[...SIZES]}
            value={dimensione}
            onChange={(v) => v && setDimensione(v as (typeof SIZES)[number])}
            w={130}
            allowDeselect={false}
          />
          <Button
            onClick={() => void add()}
            loading={adding.saving}
            disabled={!nome.trim() || !indirizzo.trim()}
            data-testid="aggiungi-stampante"
          >
            Aggiungi
          </Button>
        </Group>
        {adding.error && <Alert color="red">{adding.error}</Alert>}
      </Stack>

      <DataTable
        minWidth={620}
        striped
        columns={[
          { label: "Nome" },
          { label: "Indirizzo" },
          { label: "Etichette" },
          { label: "Stato" },
          { label: "Aggiunta" },
          { key: "azioni" },
        ]}
      >
        {(printers.data?.stampanti ?? []).map((p) => (
          <Table.Tr key={p.id} data-testid={`stampante-${p.id}`} c={p.attiva ? undefined : "dimmed"}>
            <Table.Td fw={600}>{p.nome}</Table.Td>
            <Table.Td>{p.indirizzo}</Table.Td>
            <Table.Td>{p.dimensione}</Table.Td>
            <Table.Td>
              <Badge color={p.attiva ? "green" : "gray"} variant="light" data-testid="stato-stampante">
                {p.attiva ? "attiva" : "disattivata"}
              </Badge>
            </Table.Td>
            <Table.Td>{instant(p.creata_il)}</Table.Td>
            <Table.Td>
              <Button size="xs" variant="light" onClick={() => setEditing(p)} data-testid="modifica-stampante">
                Modifica
              </Button>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {editing && <PrinterEdit printer={editing} onClose={() => setEditing(null)} onSaved={refreshPrinters} />}

      <Stack gap="xs">
        <Title order={3}>Ultime stampe</Title>
        {reprintError && <Alert color="red">{reprintError}</Alert>}
        {jobs.data?.stampe.length === 0 && (
          <Text size="sm" c="dimmed">
            Nessuna stampa finora.
          </Text>
        )}
        <DataTable
          minWidth={640}
          striped
          columns={[{ label: "Stampa" }, { label: "Stato" }, { label: "Etichetta", wide: true }, { key: "azioni" }]}
        >
          {(jobs.data?.stampe ?? []).map((j) => (
            <Table.Tr key={j.id} data-testid={`stampa-${j.id}`}>
              <Table.Td>
                <Text size="sm" fw={600}>
                  {j.id} · {j.stampante.nome}
                </Text>
                <Text size="xs" c="dimmed">
                  {instant(j.creata_il)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge color={STATE[j.stato]?.color}>{STATE[j.stato]?.label ?? j.stato}</Badge>
                {j.motivo && (
                  <Text size="xs" c="red.8">
                    {j.motivo}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Text size="sm">
                  {labelWords(j.etichetta)} · {j.copie} {j.copie === 1 ? "copia" : "copie"}
                </Text>
              </Table.Td>
              <Table.Td>
                {j.stato === "fallita" && (
                  <Button
                    size="xs"
                    variant="light"
                    loading={reprint.isPending}
                    onClick={() =>
                      reprint
                        .mutateAsync({ id: j.id })
                        .then(() => setReprintError(null))
                        .catch((e: unknown) => setReprintError(describeWriteError(e).messaggio))
                        .finally(() => void jobs.refetch())
                    }
                  >
                    Ristampa
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      </Stack>

      <AdminLog />
    </Stack>
  );
}
