"use client";
import {
  Alert,
  Button,
  FileInput,
  Group,
  List,
  Progress,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  Title,
} from "@mantine/core";
import { count } from "../format";
import { useWarehouses } from "../hooks";
import type { ParsedCounts } from "../inventory-csv";
import { roleAtLeast, useUser } from "../session-context";
import { AlignmentResult, ConfirmAlignmentModal } from "./inventory/alignment-result";
import { ScanCount } from "./inventory/scan-count";
import { useInventory } from "./inventory/use-inventory";
import { useScanCount } from "./inventory/use-scan-count";

/** The lines of the file that were not read, listed (the first 50) and left out of the alignment. */
function ParseProblems({ parsed }: { parsed: ParsedCounts }) {
  return (
    <Alert
      color="orange"
      title={
        parsed.problems.length === 1
          ? "1 riga del file non è stata letta: non viene inviata"
          : `${parsed.problems.length} righe del file non sono state lette: non vengono inviate`
      }
      data-testid="errori-lettura"
    >
      <List size="sm" spacing={2}>
        {parsed.problems.slice(0, 50).map((p) => (
          <List.Item key={`${p.riga}-${p.messaggio}`}>{p.riga > 0 ? `Riga ${p.riga}: ${p.messaggio}` : p.messaggio}</List.Item>
        ))}
      </List>
      {parsed.problems.length > 50 && <Text size="sm">… e altre {parsed.problems.length - 50}.</Text>}
    </Alert>
  );
}

/** Stock aligned to a count: a CSV read, a preview, then (for a manager) the write. State and calls in useInventory. */
export function InventoryScreen() {
  const user = useUser();
  const canConfirm = roleAtLeast(user, "responsabile");
  const { options: warehouseOptions, nameOf } = useWarehouses();
  const inv = useInventory();
  const sc = useScanCount(inv.source === "lettura" ? inv.magazzino : null, inv.dropPreview);
  const warehouse = nameOf(Number(inv.magazzino));

  return (
    <Stack gap="md" maw={1100}>
      <Title order={2}>Inventario: allineamento delle giacenze</Title>
      <Text c="dimmed" size="sm">
        {inv.source === "lettura" ? (
          <>Con il lettore: l&apos;etichetta dell&apos;ubicazione, poi la merce (ogni lettura conta una confezione).</>
        ) : (
          <>
            File CSV <code>codice;contato[;lotto]</code> (intestazione facoltativa, separatore <code>;</code> o <code>,</code>, decimali con
            la virgola o il punto).
          </>
        )}{" "}
        Prima si vede l&apos;anteprima, poi si conferma:{" "}
        {canConfirm ? "la conferma scrive le correzioni." : "la conferma spetta a un responsabile."}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <Select
          label="Magazzino contato"
          data={warehouseOptions}
          value={inv.magazzino}
          onChange={(v) => inv.change("magazzino", v)}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <SegmentedControl
          mt={{ base: 0, sm: 26 }}
          value={inv.source}
          onChange={(v) => inv.change("source", v as "file" | "testo" | "lettura")}
          data={[
            { value: "lettura", label: "Lettore" },
            { value: "file", label: "Carica file" },
            { value: "testo", label: "Incolla" },
          ]}
          data-testid="origine-conteggi"
        />
      </SimpleGrid>
      {inv.source === "lettura" ? (
        <ScanCount
          sc={sc}
          onEmpty={(ubicazione) => {
            sc.markEmpty();
            void inv.preview({ counts: { rows: [], problems: [], separator: ";", header: false }, scope: { ubicazione, completa: true } });
          }}
        />
      ) : inv.source === "file" ? (
        <FileInput
          label="File dei conteggi"
          placeholder="Scegliere il file .csv"
          accept=".csv,text/csv,text/plain"
          value={inv.file}
          onChange={(f) => inv.change("file", f)}
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
          value={inv.text}
          onChange={(e) => inv.change("text", e.currentTarget.value)}
          styles={{ input: { fontFamily: "monospace" } }}
          data-testid="campo-testo"
        />
      )}
      <Group>
        <Button
          size="lg"
          onClick={() => void inv.preview(inv.source === "lettura" ? { counts: sc.asCounts(), scope: sc.scope } : undefined)}
          loading={inv.running === "anteprima" || inv.parseProgress !== null}
          data-testid="anteprima"
        >
          Anteprima
        </Button>
      </Group>

      {inv.parseProgress !== null && (
        <Stack gap={4} data-testid="avanzamento-lettura">
          <Text size="sm">Lettura del file… {inv.parseProgress}%</Text>
          <Progress value={inv.parseProgress} size="lg" />
        </Stack>
      )}
      {inv.running && (
        <Stack gap={4} data-testid="avanzamento">
          <Text size="sm">
            {inv.running === "anteprima" ? "Calcolo dell'anteprima" : "Scrittura delle correzioni"} di{" "}
            {count(inv.parsed?.rows.length ?? 0, "riga", "righe")}… {inv.elapsed} s
          </Text>
          <Progress value={100} striped animated size="lg" />
        </Stack>
      )}
      {inv.error && (
        <Alert color="red" variant="filled" role="alert" data-testid="errore">
          {inv.error}
        </Alert>
      )}
      {inv.parsed && inv.parsed.problems.length > 0 && <ParseProblems parsed={inv.parsed} />}

      {inv.result && (
        <AlignmentResult
          result={inv.result}
          warehouse={warehouse}
          large={inv.large}
          canConfirm={canConfirm}
          toWrite={inv.toWrite}
          filter={inv.filter}
          onFilter={inv.changeFilter}
          rows={inv.rows}
          shown={inv.shown}
          page={inv.page}
          onPage={inv.setPage}
          parsed={inv.parsed}
          emptyBin={inv.emptyBin}
          onConfirm={() => inv.setConfirming(true)}
        />
      )}

      <ConfirmAlignmentModal
        opened={inv.confirming}
        toWrite={inv.toWrite}
        warehouse={warehouse}
        large={inv.large}
        emptyBin={inv.emptyBin}
        onWrite={inv.confirm}
        onClose={() => inv.setConfirming(false)}
      />
    </Stack>
  );
}
