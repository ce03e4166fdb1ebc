"use client";
import { Alert, Button, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { useQueries, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { describeError } from "../errors";
import { signal } from "../feedback";
import { parseDecimal } from "../format";
import { useWarehouses } from "../hooks";
import { useTRPC, useTRPCClient } from "../trpc";
import { useWrite } from "../write-key";
import { type DraftRow, MovementRow, type ReadArticle } from "./movements/movement-row";
import { movementRefusal, type Natura, type Places, resultTitle, rowRefusal, type SentRow, writtenLine } from "./movements/movement-words";

interface MovementDraft {
  natura: Natura;
  magazzino: string | null;
  origine: string | null;
  causale: string;
  righe: DraftRow[];
}

/** What the last write did, in words: its heading, the rows written, and whether some stayed in the form. */
interface Outcome {
  title: string;
  lines: string[];
  color: "green" | "orange" | "red";
}

const emptyRow = (): DraftRow => ({ articolo: "", quantita: "", lotto: "", scadenza: "", prezzo: "" });

/**
 * The article each typed code or EAN names (catalogue.resolve), one cached look-up per text: the rows show
 * what they read as the operator types, and the write reads the same answers.
 */
function useArticleReader() {
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const options = (text: string) => ({
    queryKey: ["movimento-articolo", text],
    queryFn: async (): Promise<ReadArticle | null> =>
      (await client.catalogue.resolve.mutate({ letture: [text] })).articoli[0]?.articolo ?? null,
    staleTime: 60_000,
  });
  return {
    options,
    read: (text: string) => queryClient.fetchQuery(options(text)),
  };
}

/** Loads, unloads and transfers by hand (origin "schermo", set by the server for this channel). */
export function MovementFormScreen() {
  const trpc = useTRPC();
  const { options: warehouseOptions, magazzini } = useWarehouses();
  const form = useForm<MovementDraft>({
    initialValues: { natura: "carico", magazzino: null, origine: null, causale: "", righe: [emptyRow()] },
  });
  const { natura, magazzino, origine, righe: rows } = form.getValues();
  const { saving, error, setError, run } = useWrite(
    (context) => trpc.movements.write.mutationOptions({ trpc: { context } }),
    movementRefusal,
  );
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [problems, setProblems] = useState<(string | undefined)[]>([]);
  const reader = useArticleReader();
  const [typed] = useDebouncedValue(rows.map((r) => r.articolo.trim()).join("\n"), 300);
  const texts = [...new Set(typed.split("\n").filter((t) => t !== ""))];
  const reads = useQueries({ queries: texts.map(reader.options) });
  const articleOf = (text: string): ReadArticle | null | undefined => {
    const i = texts.indexOf(text.trim());
    return i < 0 ? undefined : reads[i]?.data;
  };
  const codeOf = (id: string | null) => magazzini.find((m) => String(m.id) === id)?.codice ?? null;
  const sourceId = natura === "trasferimento" ? origine : magazzino;
  const source = sourceId && codeOf(sourceId) ? { id: Number(sourceId), codice: codeOf(sourceId)! } : null;
  const bind = (path: string) => {
    const { value, onChange } = form.getInputProps(path);
    return { value, onChange };
  };
  // A lot picked or typed belongs to one kind of movement and one warehouse: changing either empties it.
  const clearLots = () => {
    for (const i of rows.keys()) {
      form.setFieldValue(`righe.${i}.lotto`, "");
      form.setFieldValue(`righe.${i}.scadenza`, "");
    }
  };

  /** The form's own checks, in the operator's words; the request when every row is complete. */
  async function prepare(): Promise<{ request: Parameters<typeof run>[0]; sent: SentRow[]; kept: number[] } | null> {
    if (natura === "trasferimento" && !origine) return (setError("Scegliere il magazzino da cui parte la merce."), null);
    if (!magazzino)
      return (setError(natura === "trasferimento" ? "Scegliere il magazzino in cui arriva la merce." : "Scegliere il magazzino."), null);
    if (natura === "trasferimento" && origine === magazzino)
      return (setError("Scegliere due magazzini diversi: la merce parte da uno e arriva nell'altro."), null);
    const filled = [...rows.entries()].filter(([, r]) => r.articolo.trim() || r.quantita.trim());
    if (filled.length === 0) return (setError("Scrivere almeno un articolo con la sua quantità."), null);
    let read: (ReadArticle | null)[];
    try {
      read = await Promise.all(filled.map(([, r]) => (r.articolo.trim() ? reader.read(r.articolo.trim()) : null)));
    } catch (e) {
      return (setError(describeError(e).messaggio), null);
    }
    const found: (string | undefined)[] = [];
    const sent: SentRow[] = [];
    const righe = filled.map(([i, r], k) => {
      const article = read[k];
      const q = parseDecimal(r.quantita);
      const lotto = r.lotto.trim();
      const problem = !r.articolo.trim()
        ? "Scrivere il codice dell'articolo o leggerne l'EAN."
        : !article
          ? `Nessun articolo con codice o EAN ${r.articolo.trim()}: controllare quanto scritto.`
          : article.ha_varianti
            ? `${article.codice} è un modello con varianti: indicare la variante da movimentare.`
            : q === null || q <= 0
              ? "Scrivere la quantità: un numero maggiore di zero (per esempio 3 o 2,5)."
              : r.prezzo.trim() && parseDecimal(r.prezzo) === null
                ? "Il prezzo non è un numero: scriverlo come 12,50, o lasciarlo vuoto per il prezzo suggerito."
                : article.gestione_lotti && !lotto
                  ? natura === "carico"
                    ? `${article.codice} è gestito a lotti: scrivere il lotto (e la scadenza, se c'è).`
                    : `${article.codice} è gestito a lotti: scegliere il lotto da cui prelevare.`
                  : undefined;
      found[i] = problem;
      const lot = article?.gestione_lotti ? { lotto, ...(natura === "carico" && r.scadenza ? { scadenza: r.scadenza } : {}) } : {};
      sent.push({ letto: r.articolo.trim(), codice: article?.codice ?? null, quantita: q ?? 0, ...lot });
      return {
        codice: article?.codice ?? r.articolo.trim(),
        quantita: q ?? 0,
        ...lot,
        ...(r.prezzo.trim() ? { prezzo: r.prezzo.trim().replace(",", ".") } : {}),
      };
    });
    setProblems(found);
    if (found.some(Boolean)) return (setError("Il movimento non è stato registrato: correggere le righe segnate in rosso."), null);
    const request = {
      natura,
      magazzino: Number(magazzino),
      ...(natura === "trasferimento" ? { magazzino_origine: Number(origine) } : {}),
      ...(form.getValues().causale.trim() ? { causale: form.getValues().causale.trim() } : {}),
      righe,
    };
    return { request, sent, kept: filled.map(([i]) => i) };
  }

  async function submit() {
    if (saving) return;
    setError(null);
    setOutcome(null);
    setProblems([]);
    const prepared = await prepare();
    if (!prepared) return;
    const out = await run(prepared.request);
    if (!out) return;
    const places: Places = { magazzino: codeOf(magazzino) ?? "", origine: codeOf(origine) };
    const written = out.righe.filter((r) => r.esito === "scritta").map((r) => writtenLine(natura, prepared.sent[r.indice]!, places));
    const refused = out.righe.filter((r) => r.esito === "rifiutata");
    // Written rows leave the form, so pressing Registra again can never write them twice; refused ones
    // stay, each with its reason, to be corrected.
    const left = refused.map((r) => rows[prepared.kept[r.indice]!]!);
    form.setFieldValue("righe", left.length > 0 ? left : [emptyRow()]);
    setProblems(refused.map((r) => rowRefusal(natura, r.errore ?? { codice: "", messaggio: "" }, prepared.sent[r.indice]!, places)));
    if (refused.length > 0) {
      written.push(
        `${refused.length === 1 ? "Una riga non è stata registrata ed è rimasta" : `${refused.length} righe non sono state registrate e sono rimaste`} nel modulo con il motivo: correggere e premere di nuovo Registra.`,
      );
    }
    setOutcome({
      title: resultTitle(natura, out),
      lines: written,
      color: out.scritte === 0 ? "red" : refused.length > 0 ? "orange" : "green",
    });
    signal(refused.length > 0 ? "ko" : "ok");
  }

  return (
    <Stack gap="md" maw={1000}>
      <Title order={2}>Nuovo movimento</Title>
      <SegmentedControl
        fullWidth
        value={natura}
        onChange={(v) => (form.setFieldValue("natura", v as Natura), clearLots())}
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
            onChange={(v) => (form.setFieldValue("origine", v), clearLots())}
            allowDeselect={false}
            data-testid="campo-origine"
          />
        )}
        <Select
          label={natura === "trasferimento" ? "A magazzino" : "Magazzino"}
          data={warehouseOptions}
          value={magazzino}
          onChange={(v) => (form.setFieldValue("magazzino", v), natura === "scarico" && clearLots())}
          allowDeselect={false}
          data-testid="campo-magazzino"
        />
        <TextInput label="Causale (facoltativa)" {...bind("causale")} placeholder="es. Reso cliente" />
      </SimpleGrid>
      <Stack gap="xs">
        {rows.map((r, i) => (
          <MovementRow
            // biome-ignore lint/suspicious/noArrayIndexKey: a row is its position in the form; its inputs are controlled by that path
            key={i}
            index={i}
            natura={natura}
            row={r}
            article={articleOf(r.articolo)}
            source={source}
            bind={bind}
            setValue={(path, value) => form.setFieldValue(path, value)}
            onRemove={rows.length > 1 ? () => (form.removeListItem("righe", i), setProblems([])) : undefined}
            problem={problems[i]}
          />
        ))}
        <Button variant="light" onClick={() => form.insertListItem("righe", emptyRow())} w="fit-content">
          Aggiungi riga
        </Button>
      </Stack>
      {error && (
        <Alert color="red" variant="filled" role="alert" data-testid="errore-movimento">
          {error}
        </Alert>
      )}
      {outcome && (
        <Alert color={outcome.color} title={outcome.title} data-testid="esito-movimento">
          {outcome.lines.map((line, k) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one answer, never reordered
            <Text key={k} size="sm">
              {line}
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
