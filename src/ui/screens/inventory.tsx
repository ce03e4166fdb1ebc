"use client";
import {
  Alert,
  Badge,
  Button,
  Card,
  FileInput,
  Group,
  List,
  Modal,
  Pagination,
  Progress,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Textarea,
  Title,
} from "@mantine/core";
import { useEffect, useMemo, useState } from "react";
import type { AlignOutput, AlignRow } from "@/server/modules/alignment/alignment.schemas";
import { describeError, describeWriteError } from "../errors";
import { signal } from "../feedback";
import { qty } from "../format";
import { useWarehouses } from "../hooks";
import { csvCell } from "@/lib/csv";
import { csvDecimal, parseCountsInSlices, type ParsedCounts } from "../inventory-csv";
import { roleAtLeast, useUser } from "../session-context";
import { useTRPCClient } from "../trpc";
import { useWriteKey } from "../write-key";

const PAGE = 100;

/** A difference worth a second look: a quarter of what the system expected, or stock where none was. */
export function isLargeDelta(r: AlignRow): boolean {
  if (r.delta === null || r.attuale === null) return false;
  const delta = Math.abs(Number(r.delta));
  const attuale = Math.abs(Number(r.attuale));
  if (delta === 0) return false;
  return attuale === 0 ? delta >= 1 : delta / attuale >= 0.25;
}

function resultCsv(out: AlignOutput, simulated: boolean): string {
  const header = ["riga", "codice", "lotto", "attuale", "contato", "delta", "esito", "movimento", "errore"];
  const lines = out.righe.map((r) =>
    [
      r.indice + 1,
      r.articolo?.codice ?? r.codice ?? "",
      r.lotto ?? "",
      csvDecimal(r.attuale),
      csvDecimal(r.contato),
      csvDecimal(r.delta),
      simulated && r.esito === "scritta" ? "da scrivere" : r.esito,
      r.movimento ?? "",
      r.errore ? `${r.errore.codice}: ${r.errore.messaggio}` : "",
    ]
      .map(csvCell)
      .join(";"),
  );
  // BOM: spreadsheets then read the accents right.
  return `\uFEFF${header.join(";")}\n${lines.join("\n")}\n`;
}

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function useElapsed(running: boolean): number {
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    if (!running) return;
    const start = Date.now();
    setElapsed(0);
    const t = setInterval(() => setElapsed(Math.round((Date.now() - start) / 1000)), 250);
    return () => clearInterval(t);
  }, [running]);
  return elapsed;
}

export function InventoryScreen() {
  const client = useTRPCClient();
  const user = useUser();
  const canConfirm = roleAtLeast(user, "responsabile");
  const { options: warehouseOptions, nameOf } = useWarehouses();
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [source, setSource] = useState<"file" | "testo">("file");
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState("");
  const [parseProgress, setParseProgress] = useState<number | null>(null);
  const [parsed, setParsed] = useState<ParsedCounts | null>(null);
  const [running, setRunning] = useState<"anteprima" | "conferma" | null>(null);
  const [result, setResult] = useState<{ out: AlignOutput; simulated: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState<"tutte" | "differenze" | "rifiutate">("tutte");
  const [page, setPage] = useState(1);
  const [confirming, setConfirming] = useState(false);
  const writeKey = useWriteKey();
  const elapsed = useElapsed(running !== null);

  function reset() {
    setParsed(null);
    setResult(null);
    setError(null);
    setPage(1);
  }

  async function preview() {
    setError(null);
    setResult(null);
    if (!magazzino) return setError("Scegliere il magazzino contato.");
    const content = source === "file" ? await file?.text() : text;
    if (!content?.trim()) return setError(source === "file" ? "Scegliere il file CSV dei conteggi." : "Incollare i conteggi.");
    setParseProgress(0);
    const counts = await parseCountsInSlices(content, (done, total) => setParseProgress(Math.round((done / total) * 100)));
    setParseProgress(null);
    setParsed(counts);
    if (counts.rows.length === 0 || counts.problems.some((p) => p.riga === 0)) {
      signal("ko");
      return setError(counts.rows.length === 0 ? "Nessuna riga valida da allineare." : counts.problems[0]!.messaggio);
    }
    await align(counts, true);
  }

  async function align(counts: ParsedCounts, simula: boolean) {
    setRunning(simula ? "anteprima" : "conferma");
    try {
      // One call with every row: the preview and the write see the same rows as one unit.
      const request = {
        magazzino: Number(magazzino),
        ...(simula ? { simula: true } : {}),
        causale: "Inventario",
        righe: counts.rows.map((r) => ({ codice: r.codice, contato: r.contato, ...(r.lotto ? { lotto: r.lotto } : {}) })),
      };
      const out = await client.alignment.align.mutate(request, simula ? {} : { context: { idempotencyKey: writeKey.for(request) } });
      if (!simula) writeKey.settle();
      setResult({ out, simulated: simula });
      setPage(1);
      signal(out.rifiutate > 0 ? "ko" : "ok");
    } catch (e) {
      if (!simula) writeKey.settle(e);
      setError((simula ? describeError(e) : describeWriteError(e)).messaggio);
      signal("ko");
    } finally {
      setRunning(null);
    }
  }

  const rows = useMemo(() => {
    const all = result?.out.righe ?? [];
    if (filter === "rifiutate") return all.filter((r) => r.esito === "rifiutata");
    if (filter === "differenze") return all.filter((r) => r.esito === "rifiutata" || (r.delta !== null && Number(r.delta) !== 0));
    return all;
  }, [result, filter]);
  const large = useMemo(() => (result?.out.righe ?? []).filter(isLargeDelta).length, [result]);
  const shown = rows.slice((page - 1) * PAGE, page * PAGE);
  const toWrite = result?.simulated ? result.out.scritte : 0;

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Inventario: allineamento delle giacenze</Title>
      <Text c="dimmed" size="sm">
        File CSV <code>codice;contato[;lotto]</code> (intestazione facoltativa, separatore <code>;</code> o <code>,</code>, decimali con la virgola o il
        punto). Prima si vede l&apos;anteprima, poi si conferma: {canConfirm ? "la conferma scrive le correzioni." : "la conferma spetta a un responsabile."}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Select
          label="Magazzino contato"
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => (setMagazzino(v), reset())}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <SegmentedControl
          mt={{ base: 0, sm: 26 }}
          value={source}
          onChange={(v) => (setSource(v as "file" | "testo"), reset())}
          data={[
            { value: "file", label: "Carica file" },
            { value: "testo", label: "Incolla" },
          ]}
        />
      </SimpleGrid>
      {source === "file" ? (
        <FileInput
          label="File dei conteggi"
          placeholder="Scegliere il file .csv"
          accept=".csv,text/csv,text/plain"
          value={file}
          onChange={(f) => (setFile(f), reset())}
          clearable
          data-testid="campo-file"
        />
      ) : (
        <Textarea
          label="Conteggi"
          placeholder={"codice;contato;lotto\nVITE-M6;120\nOLIO-EVO-1L;12;L2611A"}
          // Fixed height: measuring a pasted file of thousands of lines at every keystroke would freeze a handheld.
          rows={8}
          resize="vertical"
          value={text}
          onChange={(e) => (setText(e.currentTarget.value), reset())}
          styles={{ input: { fontFamily: "monospace" } }}
          data-testid="campo-testo"
        />
      )}
      <Group>
        <Button size="lg" onClick={() => void preview()} loading={running === "anteprima" || parseProgress !== null} data-testid="anteprima">
          Anteprima
        </Button>
      </Group>

      {parseProgress !== null && (
        <Stack gap={4} data-testid="avanzamento-lettura">
          <Text size="sm">Lettura del file… {parseProgress}%</Text>
          <Progress value={parseProgress} size="lg" />
        </Stack>
      )}
      {running && (
        <Stack gap={4} data-testid="avanzamento">
          <Text size="sm">
            {running === "anteprima" ? "Calcolo dell'anteprima" : "Scrittura delle correzioni"} di {parsed?.rows.length ?? 0} righe… {elapsed} s
          </Text>
          <Progress value={100} striped animated size="lg" />
        </Stack>
      )}
      {error && (
        <Alert color="red" variant="filled" role="alert" data-testid="errore">
          {error}
        </Alert>
      )}
      {parsed && parsed.problems.length > 0 && (
        <Alert color="orange" title={`${parsed.problems.length} righe del file non sono state lette: non vengono inviate`} data-testid="errori-lettura">
          <List size="sm" spacing={2}>
            {parsed.problems.slice(0, 50).map((p) => (
              <List.Item key={`${p.riga}-${p.messaggio}`}>{p.riga > 0 ? `Riga ${p.riga}: ${p.messaggio}` : p.messaggio}</List.Item>
            ))}
          </List>
          {parsed.problems.length > 50 && <Text size="sm">… e altre {parsed.problems.length - 50}.</Text>}
        </Alert>
      )}

      {result && (
        <Card withBorder padding="md" data-testid="risultato">
          <Stack gap="sm">
            <Group justify="space-between" wrap="wrap">
              <Title order={4}>
                {result.simulated ? "Anteprima" : "Allineamento scritto"} · magazzino {nameOf(Number(magazzino))}
              </Title>
              <Group gap="xs">
                <Badge size="lg" color="blue" variant="light">
                  {result.simulated ? "da correggere" : "corrette"}: {result.out.scritte}
                </Badge>
                <Badge size="lg" color="gray" variant="light">
                  invariate: {result.out.invariate}
                </Badge>
                <Badge size="lg" color="red" variant={result.out.rifiutate ? "filled" : "light"}>
                  rifiutate: {result.out.rifiutate}
                </Badge>
                {large > 0 && (
                  <Badge size="lg" color="orange" variant="filled">
                    differenze grandi: {large}
                  </Badge>
                )}
              </Group>
            </Group>
            {!result.simulated && result.out.operazione !== null && <Text>Operazione {result.out.operazione}: le correzioni sono movimenti con origine &quot;correzione&quot;.</Text>}
            <Group justify="space-between" wrap="wrap">
              <SegmentedControl
                size="sm"
                value={filter}
                onChange={(v) => (setFilter(v as typeof filter), setPage(1))}
                data={[
                  { value: "tutte", label: "Tutte" },
                  { value: "differenze", label: "Con differenza" },
                  { value: "rifiutate", label: "Rifiutate" },
                ]}
              />
              <Group gap="xs">
                <Button variant="light" onClick={() => download(`allineamento-${result.simulated ? "anteprima" : "esito"}.csv`, resultCsv(result.out, result.simulated))} data-testid="scarica-esito">
                  Scarica CSV
                </Button>
                {result.simulated && canConfirm && (
                  <Button color="teal" onClick={() => setConfirming(true)} disabled={toWrite === 0} data-testid="conferma">
                    Conferma e scrivi {toWrite} correzioni
                  </Button>
                )}
              </Group>
            </Group>
            {result.simulated && !canConfirm && (
              <Alert color="blue" variant="light">
                Anteprima pronta. La conferma (scrittura delle correzioni) spetta a un responsabile: scaricare il CSV e consegnarlo.
              </Alert>
            )}
            <Table.ScrollContainer minWidth={640}>
              <Table striped verticalSpacing="xs" data-testid="tabella-allineamento">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>#</Table.Th>
                    <Table.Th>Articolo</Table.Th>
                    <Table.Th>Lotto</Table.Th>
                    <Table.Th className="num">Attuale</Table.Th>
                    <Table.Th className="num">Contato</Table.Th>
                    <Table.Th className="num">Differenza</Table.Th>
                    <Table.Th>Esito</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {shown.map((r) => {
                    const refused = r.esito === "rifiutata";
                    const big = isLargeDelta(r);
                    return (
                      <Table.Tr key={r.indice} bg={refused ? "red.0" : big ? "orange.0" : undefined} data-esito={r.esito}>
                        <Table.Td>{parsed?.rows[r.indice]?.riga ?? r.indice + 1}</Table.Td>
                        <Table.Td>
                          <Text size="sm" fw={600}>
                            {r.articolo?.codice ?? r.codice}
                          </Text>
                          {r.errore && (
                            <Text size="xs" c="red.8">
                              {r.errore.messaggio}
                            </Text>
                          )}
                        </Table.Td>
                        <Table.Td>{r.lotto ?? ""}</Table.Td>
                        <Table.Td className="num">{qty(r.attuale)}</Table.Td>
                        <Table.Td className="num">{qty(r.contato)}</Table.Td>
                        <Table.Td className="num" c={r.delta && Number(r.delta) < 0 ? "red.8" : r.delta && Number(r.delta) > 0 ? "green.8" : undefined} fw={big ? 800 : 400}>
                          {r.delta !== null && Number(r.delta) > 0 ? "+" : ""}
                          {qty(r.delta)}
                          {big && (
                            <Badge ml={6} size="xs" color="orange">
                              grande
                            </Badge>
                          )}
                        </Table.Td>
                        <Table.Td>
                          <Badge color={refused ? "red" : r.esito === "invariata" ? "gray" : "blue"} variant="light">
                            {result.simulated && r.esito === "scritta" ? "da correggere" : r.esito}
                          </Badge>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {rows.length > PAGE && <Pagination total={Math.ceil(rows.length / PAGE)} value={page} onChange={setPage} size="md" />}
          </Stack>
        </Card>
      )}

      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Confermare l'allineamento?" centered>
        <Stack>
          <Text>
            Scrivere <b>{toWrite}</b> correzioni nel magazzino {nameOf(Number(magazzino))}? Le giacenze diventano i valori contati; le righe rifiutate restano come sono.
            {large > 0 && (
              <>
                {" "}
                <b>{large}</b> righe hanno differenze grandi: controllarle prima.
              </>
            )}
          </Text>
          <Group grow>
            <Button
              color="teal"
              size="lg"
              onClick={() => {
                setConfirming(false);
                if (parsed) void align(parsed, false);
              }}
              data-testid="conferma-scrittura"
            >
              Scrivi
            </Button>
            <Button variant="default" size="lg" onClick={() => setConfirming(false)}>
              Annulla
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
