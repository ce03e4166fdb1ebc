"use client";
import { Alert, Badge, Button, Card, Group, Pagination, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import type { AlignRow } from "@/server/modules/alignment/alignment.schemas";
import { DataTable } from "../../data-table";
import { count, qty } from "../../format";
import type { ParsedCounts } from "../../inventory-csv";
import { type AlignResult, download, type Filter, isLargeDelta, PAGE, resultCsv } from "./use-inventory";
import { Modal } from "../../lazy-modal";

function AlignmentRow({ r, simulated, parsed }: { r: AlignRow; simulated: boolean; parsed: ParsedCounts | null }) {
  const refused = r.esito === "rifiutata";
  const big = isLargeDelta(r);
  return (
    <Table.Tr bg={refused ? "red.0" : big ? "orange.0" : undefined} data-esito={r.esito}>
      <Table.Td>{r.implicita ? "—" : (parsed?.rows[r.indice]?.riga ?? r.indice + 1)}</Table.Td>
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
      <Table.Td
        className="num"
        c={r.delta && Number(r.delta) < 0 ? "red.8" : r.delta && Number(r.delta) > 0 ? "green.8" : undefined}
        fw={big ? 800 : 400}
      >
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
          {simulated && r.esito === "scritta" ? "da correggere" : r.esito}
        </Badge>
      </Table.Td>
    </Table.Tr>
  );
}

/** The preview or the written alignment: its counts, a filter, the CSV, the confirmation, the rows page by page. */
export function AlignmentResult({
  result,
  warehouse,
  large,
  canConfirm,
  toWrite,
  filter,
  onFilter,
  rows,
  shown,
  page,
  onPage,
  parsed,
  emptyBin,
  onConfirm,
}: {
  result: AlignResult;
  warehouse: string;
  large: number;
  canConfirm: boolean;
  toWrite: number;
  filter: Filter;
  onFilter: (f: Filter) => void;
  rows: AlignRow[];
  shown: AlignRow[];
  page: number;
  onPage: (p: number) => void;
  parsed: ParsedCounts | null;
  emptyBin: string | null;
  onConfirm: () => void;
}) {
  // An operator's preview is blind (no current stock, no difference): valid rows come back `contata`, and
  // what a bin counted whole holds besides them is not listed (an empty bin's preview lists nothing).
  const blind = result.out.righe.filter((r) => r.esito === "contata").length;
  const blindView = blind > 0 || (result.simulated && !canConfirm);
  return (
    <Card withBorder padding="md" data-testid="risultato">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Title order={4}>
            {result.simulated ? "Anteprima" : "Allineamento scritto"} · magazzino {warehouse}
          </Title>
          <Group gap="xs">
            {blindView ? (
              <Badge size="lg" color="blue" variant="light">
                contate: {blind}
              </Badge>
            ) : (
              <>
                <Badge size="lg" color="blue" variant="light">
                  {result.simulated ? "da correggere" : "corrette"}: {result.out.scritte}
                </Badge>
                <Badge size="lg" color="gray" variant="light">
                  invariate: {result.out.invariate}
                </Badge>
              </>
            )}
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
        {emptyBin && (
          <Alert color="orange" variant="light" data-testid="esito-ubicazione-vuota">
            {!result.simulated
              ? `Ubicazione ${emptyBin} contata vuota: ${count(result.out.scritte, "giacenza portata", "giacenze portate")} a zero.`
              : !canConfirm
                ? `Ubicazione ${emptyBin} contata vuota: alla conferma di un responsabile ogni articolo e lotto che contiene va a zero.`
                : result.out.scritte === 0
                  ? `L'ubicazione ${emptyBin} risulta già vuota: nulla da correggere.`
                  : `Ubicazione ${emptyBin} vuota: ${count(result.out.scritte, "articolo o lotto", "articoli o lotti")} che contiene vanno a zero.`}
          </Alert>
        )}
        {!result.simulated && result.out.operazione !== null && (
          <Text>Operazione {result.out.operazione}: le correzioni sono movimenti con origine &quot;correzione&quot;.</Text>
        )}
        <Group justify="space-between" wrap="wrap">
          <SegmentedControl
            size="sm"
            value={filter}
            onChange={(v) => onFilter(v as Filter)}
            data={[
              { value: "tutte", label: "Tutte" },
              { value: "differenze", label: "Con differenza" },
              { value: "rifiutate", label: "Rifiutate" },
            ]}
          />
          <Group gap="xs" w={{ base: "100%", sm: "auto" }}>
            <Button
              variant="light"
              w={{ base: "100%", sm: "auto" }}
              onClick={() =>
                download(`allineamento-${result.simulated ? "anteprima" : "esito"}.csv`, resultCsv(result.out, result.simulated))
              }
              data-testid="scarica-esito"
            >
              Scarica CSV
            </Button>
            {result.simulated && canConfirm && (
              <Button
                color="teal"
                w={{ base: "100%", sm: "auto" }}
                // The count's figure in full on a handheld: the label wraps rather than being cut.
                h="auto"
                mih={36}
                py={6}
                styles={{ label: { whiteSpace: "normal" } }}
                onClick={onConfirm}
                disabled={toWrite === 0}
                data-testid="conferma"
              >
                Conferma e scrivi {count(toWrite, "correzione", "correzioni")}
              </Button>
            )}
          </Group>
        </Group>
        {result.simulated && !canConfirm && (
          <Alert color="blue" variant="light">
            {emptyBin
              ? `Anteprima pronta. La conferma spetta a un responsabile: segnalargli che ${emptyBin} è vuota; la conta con «Ubicazione vuota» e conferma.`
              : "Anteprima pronta. La conferma (scrittura delle correzioni) spetta a un responsabile: scaricare il CSV e consegnarlo."}
            {blind > 0 && " Il conteggio è alla cieca: la quantità attuale e la differenza le vede il responsabile."}
          </Alert>
        )}
        <DataTable
          minWidth={640}
          striped
          verticalSpacing="xs"
          data-testid="tabella-allineamento"
          columns={[
            { label: "#", cardLabel: "Riga del file" },
            { label: "Articolo", main: true },
            { label: "Lotto" },
            { label: "Attuale", num: true },
            { label: "Contato", num: true },
            { label: "Differenza", num: true },
            { label: "Esito" },
          ]}
        >
          {shown.map((r) => (
            <AlignmentRow key={r.indice} r={r} simulated={result.simulated} parsed={parsed} />
          ))}
        </DataTable>
        {rows.length > PAGE && <Pagination total={Math.ceil(rows.length / PAGE)} value={page} onChange={onPage} size="md" />}
      </Stack>
    </Card>
  );
}

/** "Confermare l'allineamento?": the counted values become the stock; refused rows stay as they are. */
export function ConfirmAlignmentModal({
  opened,
  toWrite,
  warehouse,
  large,
  emptyBin,
  onWrite,
  onClose,
}: {
  opened: boolean;
  toWrite: number;
  warehouse: string;
  large: number;
  emptyBin: string | null;
  onWrite: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={emptyBin ? `Ubicazione ${emptyBin} vuota?` : "Confermare l'allineamento?"} centered>
      <Stack>
        <Text>
          {emptyBin ? (
            <>
              Nessuna merce letta in {emptyBin}: scrivere <b>{count(toWrite, "correzione", "correzioni")}</b> nel magazzino {warehouse}, che
              portano a zero ogni articolo e lotto che vi risulta.
            </>
          ) : (
            <>
              Scrivere <b>{count(toWrite, "correzione", "correzioni")}</b> nel magazzino {warehouse}? Le giacenze diventano i valori
              contati; le righe rifiutate restano come sono.
            </>
          )}
          {large > 0 && (
            <>
              {" "}
              <b>{count(large, "riga ha", "righe hanno")}</b> differenze grandi: controllarle prima.
            </>
          )}
        </Text>
        <Group grow>
          <Button color="teal" size="lg" onClick={onWrite} data-testid="conferma-scrittura">
            Scrivi
          </Button>
          <Button variant="default" size="lg" onClick={onClose}>
            Annulla
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
