"use client";
import { ActionIcon, Alert, Button, Card, Group, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import type { WriteMovementsOutput } from "@/server/modules/movements/movements.schemas";
import { signal } from "../feedback";
import { parseDecimal } from "../format";
import { useWarehouses } from "../hooks";
import { useTRPCClient } from "../trpc";
import { useWrite } from "../write-key";

type Natura = "carico" | "scarico" | "trasferimento";

interface DraftRow {
  articolo: string;
  quantita: string;
  lotto: string;
  scadenza: string;
  prezzo: string;
}

const emptyRow = (): DraftRow => ({ articolo: "", quantita: "", lotto: "", scadenza: "", prezzo: "" });

/** Digits only, of an EAN's length: the scanner read a barcode; anything else is an article code. */
export function articleRef(text: string): { ean: string } | { codice: string } {
  const t = text.trim();
  return /^\d{8}$|^\d{12,14}$/.test(t) ? { ean: t } : { codice: t };
}

/** Loads, unloads and transfers by hand (origin "schermo", set by the server for this channel). */
export function MovementFormScreen() {
  const client = useTRPCClient();
  const { options: warehouseOptions } = useWarehouses();
  const [natura, setNatura] = useState<Natura>("carico");
  const [magazzino, setMagazzino] = useState<string | null>(null);
  const [origine, setOrigine] = useState<string | null>(null);
  const [causale, setCausale] = useState("");
  const [rows, setRows] = useState<DraftRow[]>([emptyRow()]);
  const { saving, error, setError, run } = useWrite();
  const [result, setResult] = useState<WriteMovementsOutput | null>(null);

  const update = (i: number, patch: Partial<DraftRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  async function submit() {
    if (saving) return;
    setError(null);
    setResult(null);
    if (!magazzino) return setError(natura === "trasferimento" ? "Scegliere il magazzino di destinazione." : "Scegliere il magazzino.");
    if (natura === "trasferimento" && !origine) return setError("Scegliere il magazzino di origine.");
    const righe = [];
    for (const [i, r] of rows.entries()) {
      if (!r.articolo.trim() && !r.quantita.trim()) continue;
      const q = parseDecimal(r.quantita);
      if (!r.articolo.trim()) return setError(`Riga ${i + 1}: indicare l'articolo.`);
      if (q === null || q <= 0) return setError(`Riga ${i + 1}: quantità non valida "${r.quantita}".`);
      righe.push({
        ...articleRef(r.articolo),
        quantita: q,
        ...(r.lotto.trim() ? { lotto: r.lotto.trim() } : {}),
        ...(natura === "carico" && r.scadenza ? { scadenza: r.scadenza } : {}),
        ...(r.prezzo.trim() ? { prezzo: r.prezzo.trim().replace(",", ".") } : {}),
      });
    }
    if (righe.length === 0) return setError("Aggiungere almeno una riga.");
    const request = {
      natura,
      magazzino: Number(magazzino),
      ...(natura === "trasferimento" ? { magazzino_origine: Number(origine) } : {}),
      ...(causale.trim() ? { causale: causale.trim() } : {}),
      righe,
    };
    const out = await run(request, client.movements.write.mutate);
    if (!out) return;
    setResult(out);
    signal(out.rifiutate > 0 ? "ko" : "ok");
    if (out.rifiutate === 0) setRows([emptyRow()]);
  }

  return (
    <Stack gap="md" maw={1000}>
      <Title order={2}>Nuovo movimento</Title>
      <SegmentedControl
        fullWidth
        value={natura}
        onChange={(v) => setNatura(v as Natura)}
        data={[
          { value: "carico", label: "Carico" },
          { value: "scarico", label: "Scarico" },
          { value: "trasferimento", label: "Trasferimento" },
        ]}
        data-testid="campo-natura"
      />
      <SimpleGrid cols={{ base: 1, sm: natura === "trasferimento" ? 3 : 2 }} spacing="sm">
        {natura === "trasferimento" && (
          <Select
            label="Da magazzino"
            data={warehouseOptions}
            value={origine}
            onChange={setOrigine}
            allowDeselect={false}
            data-testid="campo-origine"
          />
        )}
        <Select
          label={natura === "trasferimento" ? "A magazzino" : "Magazzino"}
          data={warehouseOptions}
          value={magazzino}
          onChange={setMagazzino}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <TextInput
          label="Causale (facoltativa)"
          value={causale}
          onChange={(e) => setCausale(e.currentTarget.value)}
          placeholder="es. Reso cliente"
        />
      </SimpleGrid>
      <Stack gap="xs">
        {rows.map((r, i) => (
          <Card key={i} withBorder padding="xs">
            <SimpleGrid cols={{ base: 2, sm: natura === "carico" ? 5 : 4 }} spacing="xs">
              <TextInput
                label="Articolo (codice o EAN)"
                value={r.articolo}
                onChange={(e) => update(i, { articolo: e.currentTarget.value })}
                data-testid={`riga-${i}-articolo`}
              />
              <TextInput
                label="Quantità"
                inputMode="decimal"
                value={r.quantita}
                onChange={(e) => update(i, { quantita: e.currentTarget.value })}
                data-testid={`riga-${i}-quantita`}
              />
              <TextInput label="Lotto" value={r.lotto} onChange={(e) => update(i, { lotto: e.currentTarget.value })} />
              {natura === "carico" && (
                <TextInput
                  label="Scadenza"
                  type="date"
                  value={r.scadenza}
                  onChange={(e) => update(i, { scadenza: e.currentTarget.value })}
                />
              )}
              <Group gap={4} align="end" wrap="nowrap">
                <TextInput
                  label="Prezzo"
                  inputMode="decimal"
                  placeholder="suggerito"
                  value={r.prezzo}
                  onChange={(e) => update(i, { prezzo: e.currentTarget.value })}
                  style={{ flex: 1 }}
                />
                {rows.length > 1 && (
                  <ActionIcon
                    size="xl"
                    variant="light"
                    color="red"
                    aria-label={`Togli la riga ${i + 1}`}
                    onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}
                  >
                    ×
                  </ActionIcon>
                )}
              </Group>
            </SimpleGrid>
          </Card>
        ))}
        <Button variant="light" onClick={() => setRows((rs) => [...rs, emptyRow()])} w="fit-content">
          Aggiungi riga
        </Button>
      </Stack>
      {error && (
        <Alert color="red" variant="filled" role="alert">
          {error}
        </Alert>
      )}
      {result && (
        <Alert
          color={result.rifiutate ? "orange" : "green"}
          title={`Operazione ${result.operazione ?? "—"}: ${result.scritte} righe scritte, ${result.rifiutate} rifiutate`}
          data-testid="esito-movimento"
        >
          {result.righe
            .filter((r) => r.esito === "rifiutata")
            .map((r) => (
              <Text key={r.indice} size="sm" c="red.8">
                Riga {r.indice + 1}: {r.errore?.messaggio}
              </Text>
            ))}
        </Alert>
      )}
      <Button size="lg" onClick={() => void submit()} loading={saving} w="fit-content" data-testid="registra-movimento">
        Registra movimento
      </Button>
    </Stack>
  );
}
