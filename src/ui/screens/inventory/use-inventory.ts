"use client";
import { useForm } from "@mantine/form";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import type { AlignOutput, AlignRow } from "@/server/modules/alignment/alignment.schemas";
import { describeError, describeWriteError } from "../../errors";
import { signal } from "../../feedback";
import { csvCell, csvDecimal } from "@/lib/csv";
import { parseCountsInSlices, type ParsedCounts } from "../../inventory-csv";
import { useTRPC } from "../../trpc";
import { useWriteKey } from "../../write-key";
import type { CountScope } from "./use-scan-count";

export const PAGE = 100;

export type Filter = "tutte" | "differenze" | "rifiutate";

export interface CountsSource {
  magazzino: string | null;
  /** A CSV file, pasted text, or the scanner (a location, then its goods: use-scan-count.ts). */
  source: "file" | "testo" | "lettura";
  file: File | null;
  text: string;
}

export interface AlignResult {
  out: AlignOutput;
  simulated: boolean;
}

/** A difference worth a second look: a quarter of what the system expected, or stock where none was. */
export function isLargeDelta(r: AlignRow): boolean {
  if (r.delta === null || r.attuale === null) return false;
  const delta = Math.abs(Number(r.delta));
  const attuale = Math.abs(Number(r.attuale));
  if (delta === 0) return false;
  return attuale === 0 ? delta >= 1 : delta / attuale >= 0.25;
}

export function resultCsv(out: AlignOutput, simulated: boolean): string {
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

export function download(name: string, text: string) {
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

/**
 * The inventory alignment's state and calls: where the counts come from (a changed source drops the
 * preview), the file read in slices with its progress, the preview (a simulated alignment, no key) and
 * the confirmed write (under its Idempotency-Key), and the result's filter and page.
 */
export function useInventory() {
  const trpc = useTRPC();
  const input = useForm<CountsSource>({ initialValues: { magazzino: null, source: "file", file: null, text: "" } });
  const { magazzino, source, file, text } = input.getValues();
  const [parseProgress, setParseProgress] = useState<number | null>(null);
  const [parsed, setParsed] = useState<ParsedCounts | null>(null);
  const [result, setResult] = useState<AlignResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState<Filter>("tutte");
  const [page, setPage] = useState(1);
  const [confirming, setConfirming] = useState(false);
  const [scope, setScope] = useState<CountScope>({ ubicazione: null, completa: false });
  const writeKey = useWriteKey();
  const resolving = useMutation(trpc.catalogue.resolve.mutationOptions());
  const previewing = useMutation(trpc.alignment.align.mutationOptions());
  const writing = useMutation(trpc.alignment.align.mutationOptions({ trpc: { context: writeKey.context } }));
  const running = previewing.isPending ? "anteprima" : writing.isPending ? "conferma" : null;
  const elapsed = useElapsed(running !== null);

  function reset() {
    setParsed(null);
    setResult(null);
    setError(null);
    setPage(1);
  }

  /** A change of where the counts come from: the preview shown no longer holds. */
  function change<K extends keyof CountsSource>(field: K, value: CountsSource[K]) {
    input.setFieldValue(field, value as never);
    reset();
  }

  /** The preview of the counts: from the file or text, or (`scanned`) those read by the scanner with their location. */
  async function preview(scanned?: { counts: ParsedCounts; scope: CountScope }) {
    setError(null);
    setResult(null);
    if (!magazzino) return setError("Scegliere il magazzino contato.");
    if (scanned) {
      setScope(scanned.scope);
      setParsed(scanned.counts);
      const { rows, problems } = scanned.counts;
      // A whole location may be counted empty: no rows, everything it holds counted zero.
      if ((rows.length === 0 && !scanned.scope.completa) || problems.length > 0) {
        signal("ko");
        return setError(problems[0]?.messaggio ?? "Leggere almeno un articolo, o contare l'intera ubicazione.");
      }
      return align(scanned.counts, true, scanned.scope);
    }
    setScope({ ubicazione: null, completa: false });
    const content = source === "file" ? await file?.text() : text;
    if (!content?.trim()) return setError(source === "file" ? "Scegliere il file CSV dei conteggi." : "Incollare i conteggi.");
    setParseProgress(0);
    const counts = await parseCountsInSlices(content, (done, total) => setParseProgress(Math.round((done / total) * 100)));
    setParseProgress(null);
    if (counts.rows.length === 0 || counts.problems.some((p) => p.riga === 0)) {
      setParsed(counts);
      signal("ko");
      return setError(counts.rows.length === 0 ? "Nessuna riga valida da allineare." : counts.problems[0]!.messaggio);
    }
    let resolved: ParsedCounts;
    try {
      resolved = await withArticleCodes(counts);
    } catch (e) {
      setParsed(counts);
      signal("ko");
      return setError(describeError(e).messaggio);
    }
    setParsed(resolved);
    await align(resolved, true);
  }

  /**
   * One lookup rule for a typed or scanned article everywhere (catalogue.resolve): a line of the file may
   * name its article by code in any case, by EAN or by a GS1 reading, as the other screens accept; the
   * alignment is sent the article's code. A value that names no article is sent as written, so the
   * alignment refuses its row with its own message.
   */
  async function withArticleCodes(counts: ParsedCounts): Promise<ParsedCounts> {
    const letture = [...new Set(counts.rows.map((r) => r.codice))];
    const { articoli } = await resolving.mutateAsync({ letture });
    const codeOf = new Map(articoli.flatMap((a) => (a.articolo ? [[a.lettura, a.articolo.codice] as const] : [])));
    return { ...counts, rows: counts.rows.map((r) => ({ ...r, codice: codeOf.get(r.codice) ?? r.codice })) };
  }

  async function align(counts: ParsedCounts, simula: boolean, where: CountScope = scope) {
    try {
      // One call with every row: the preview and the write see the same rows as one unit.
      const request = {
        magazzino: Number(magazzino),
        ...(simula ? { simula: true } : {}),
        causale: "Inventario",
        ...(where.ubicazione ? { ubicazione: where.ubicazione, ...(where.completa ? { completa: true } : {}) } : {}),
        righe: counts.rows.map((r) => ({ codice: r.codice, contato: r.contato, ...(r.lotto ? { lotto: r.lotto } : {}) })),
      };
      let out: AlignOutput;
      if (simula) out = await previewing.mutateAsync(request);
      else {
        writeKey.for(request);
        out = await writing.mutateAsync(request);
        writeKey.settle();
      }
      setResult({ out, simulated: simula });
      setPage(1);
      signal(out.rifiutate > 0 ? "ko" : "ok");
    } catch (e) {
      if (!simula) writeKey.settle(e);
      setError((simula ? describeError(e) : describeWriteError(e)).messaggio);
      signal("ko");
    }
  }

  function confirm() {
    setConfirming(false);
    if (parsed) void align(parsed, false);
  }

  function changeFilter(f: Filter) {
    setFilter(f);
    setPage(1);
  }

  const rows = useMemo(() => {
    const all = result?.out.righe ?? [];
    if (filter === "rifiutate") return all.filter((r) => r.esito === "rifiutata");
    if (filter === "differenze") return all.filter((r) => r.esito === "rifiutata" || (r.delta !== null && Number(r.delta) !== 0));
    return all;
  }, [result, filter]);
  const large = useMemo(() => (result?.out.righe ?? []).filter(isLargeDelta).length, [result]);

  return {
    magazzino,
    source,
    file,
    text,
    change,
    dropPreview: reset,
    preview,
    parseProgress,
    parsed,
    running,
    elapsed,
    error,
    result,
    filter,
    changeFilter,
    page,
    setPage,
    rows,
    shown: rows.slice((page - 1) * PAGE, page * PAGE),
    large,
    toWrite: result?.simulated ? result.out.scritte : 0,
    /** The location counted whole with no rows (found empty), or null. */
    emptyBin: scope.completa && parsed?.rows.length === 0 ? scope.ubicazione : null,
    confirming,
    setConfirming,
    confirm,
  };
}
