"use client";
import { ActionIcon, Alert, Button, Card, Group, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import type { WriteMovementsOutput } from "@/server/modules/movements/movements.schemas";
import { useArticleRefs } from "../article-refs";
import { DateField } from "../date-field";
import { describeError } from "../errors";
import { signal } from "../feedback";
import { parseDecimal } from "../format";
import { useWarehouses } from "../hooks";
import { useTRPC } from "../trpc";
import { useWrite } from "../write-key";

type Natura = "carico" | "scarico" | "trasferimento";

interface DraftRow {
  articolo: string;
  quantita: string;
  lotto: string;
  scadenza: string;
  prezzo: string;
}

interface MovementDraft {
  natura: Natura;
  magazzino: string | null;
  origine: string | null;
  causale: string;
  righe: DraftRow[];
}

const emptyRow = (): DraftRow => ({ articolo: "", quantita: "", lotto: "", scadenza: "", prezzo: "" });

/** Loads, unloads and transfers by hand (origin "schermo", set by the server for this channel). */
export function MovementFormScreen() {
  const trpc = useTRPC();
  const { options: warehouseOptions } = useWarehouses();
  const form = useForm<MovementDraft>({
    initialValues: { natura: "carico", magazzino: null, origine: null, causale: "", righe: [emptyRow()] },
  });
  const { natura, magazzino, origine, causale, righe: rows } = form.getValues();
  const { saving, error, setError, run } = useWrite((context) => trpc.movements.write.mutationOptions({ trpc: { context } }));
  const [result, setResult] = useState<WriteMovementsOutput | null>(null);
  const resolveRefs = useArticleRefs();
  const field = (path: string) => {
    const { value, onChange } = form.getInputProps(path);
    return { value, onChange };
  };

  async function submit() {
    if (saving) return;
    setError(null);
    setResult(null);
    if (!magazzino) return setError(natura === "trasferimento" ? "Scegliere il magazzino di destinazione." : "Scegliere il magazzino.");
    if (natura === "trasferimento" && !origine) return setError("Scegliere il magazzino di origine.");
    let refOf: Awaited<ReturnType<typeof resolveRefs>>;
    try {
      refOf = await resolveRefs(rows.map((r) => r.articolo));
    } catch (e) {
      return setError(describeError(e).messaggio);
    }
    const righe = [];
    for (const [i, r] of rows.entries()) {
      if (!r.articolo.trim() && !r.quantita.trim()) continue;
      const q = parseDecimal(r.quantita);
      if (!r.articolo.trim()) return setError(`Riga ${i + 1}: indicare l'articolo.`);
      if (q === null || q <= 0) return setError(`Riga ${i + 1}: quantità non valida "${r.quantita}".`);
      righe.push({
        ...refOf(r.articolo),
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
    const out = await run(request);
    if (!out) return;
    setResult(out);
    signal(out.rifiutate > 0 ? "ko" : "ok");
    if (out.rifiutate === 0) form.setFieldValue("righe", [emptyRow()]);
  }

  return (
    <Stack gap="md" maw={1000}>
      <Title order={2}>Nuovo movimento</Title>
      <SegmentedControl
        fullWidth
        value={natura}
        onChange={(v) => form.setFieldValue("natura", v as Natura)}
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
            onChange={(v) => form.setFieldValue("origine", v)}
            allowDeselect={false}
            data-testid="campo-origine"
          />
        )}
        <Select
          label={natura === "trasferimento" ? "A magazzino" : "Magazzino"}
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => form.setFieldValue("magazzino", v)}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <TextInput label="Causale (facoltativa)" {...field("causale")} placeholder="es. Reso cliente" />
      </SimpleGrid>
      <Stack gap="xs">
        {rows.map((_r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a row is its position in the form; its inputs are controlled by that path
          <Card key={i} withBorder padding="xs">
            <SimpleGrid cols={{ base: 2, sm: natura === "carico" ? 5 : 4 }} spacing="xs">
              <TextInput label="Articolo (codice o EAN)" {...field(`righe.${i}.articolo`)} data-testid={`riga-${i}-articolo`} />
              <TextInput label="Quantità" inputMode="decimal" {...field(`righe.${i}.quantita`)} data-testid={`riga-${i}-quantita`} />
              <TextInput label="Lotto" {...field(`righe.${i}.lotto`)} />
              {natura === "carico" && (
                <DateField
                  label="Scadenza"
                  value={form.getValues().righe[i]?.scadenza ?? ""}
                  onChange={(v) => form.setFieldValue(`righe.${i}.scadenza`, v)}
                />
              )}
              <Group gap={4} align="end" wrap="nowrap">
                <TextInput label="Prezzo" inputMode="decimal" placeholder="suggerito" {...field(`righe.${i}.prezzo`)} style={{ flex: 1 }} />
                {rows.length > 1 && (
                  <ActionIcon
                    size="xl"
                    variant="light"
                    color="red"
                    aria-label={`Togli la riga ${i + 1}`}
                    onClick={() => form.removeListItem("righe", i)}
                  >
                    ×
                  </ActionIcon>
                )}
              </Group>
            </SimpleGrid>
          </Card>
        ))}
        <Button variant="light" onClick={() => form.insertListItem("righe", emptyRow())} w="fit-content">
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
          title={`Operazione ${result.operazione ?? "—"}: ${result.scritte} ${result.scritte === 1 ? "riga scritta" : "righe scritte"}, ${result.rifiutate} ${result.rifiutate === 1 ? "rifiutata" : "rifiutate"}`}
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
