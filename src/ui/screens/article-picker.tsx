"use client";
import { Select } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../trpc";
import { WhereIsButton } from "./locations/where-is";

export interface PickedArticle {
  id: number;
  codice: string;
  descrizione: string;
  gestione_lotti: boolean;
  ha_varianti: boolean;
}

/** An article by code, EAN (a scanner typing into it works) or words of its description. */
export function ArticlePicker({
  label,
  value,
  onChange,
  required,
  testId,
}: {
  label: string;
  value: string | null;
  onChange: (a: PickedArticle | null) => void;
  required?: boolean;
  testId?: string;
}) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search.trim(), 250);
  const [picked, setPicked] = useState<PickedArticle[]>([]);
  const query = useQuery({ ...trpc.catalogue.articles.queryOptions({ cerca: debounced }), enabled: debounced.length > 0 });
  const found = (query.data?.articoli ?? []).filter((a) => !a.ha_varianti);
  const all = [...picked, ...found.filter((f) => !picked.some((p) => p.id === f.id))];
  const chosen = value === null ? undefined : all.find((a) => String(a.id) === value);
  return (
    <Select
      label={label}
      placeholder="Codice, EAN o descrizione"
      searchable
      clearable
      required={required}
      // "Dov'è?" once an article is chosen: where it lies, before moving or counting it.
      description={chosen ? <WhereIsButton articolo={chosen.id} codice={chosen.codice} /> : undefined}
      value={value}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      nothingFoundMessage={debounced ? (query.isFetching ? "Ricerca…" : "Nessun articolo") : "Digitare per cercare"}
      data={all.map((a) => ({ value: String(a.id), label: `${a.codice} — ${a.descrizione}` }))}
      onChange={(v) => {
        const a = all.find((x) => String(x.id) === v) ?? null;
        if (a) setPicked([a]);
        onChange(a);
      }}
      data-testid={testId}
    />
  );
}
