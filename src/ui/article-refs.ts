"use client";
import { useMutation } from "@tanstack/react-query";
import { useTRPC } from "./trpc";

export type ArticleRef = { ean: string } | { codice: string };

/** Digits only, of an EAN's length: the scanner read a barcode; anything else is an article code. */
export function articleRef(text: string): ArticleRef {
  const t = text.trim();
  return /^\d{8}$|^\d{12,14}$/.test(t) ? { ean: t } : { codice: t };
}

/**
 * One lookup rule for a typed or scanned article on every screen (catalogue.resolve: a code in any case, an
 * EAN, a GS1 reading): what the operator typed in the form's rows becomes the article's code before the
 * write is sent. A value that names no article is sent as typed (`articleRef`), so the write refuses its
 * row with its own message.
 */
export function useArticleRefs(): (typed: string[]) => Promise<(text: string) => ArticleRef> {
  const trpc = useTRPC();
  const resolving = useMutation(trpc.catalogue.resolve.mutationOptions());
  return async (typed) => {
    const letture = [...new Set(typed.map((t) => t.trim()).filter((t) => t !== ""))];
    const { articoli } = letture.length > 0 ? await resolving.mutateAsync({ letture }) : { articoli: [] };
    const codeOf = new Map(articoli.flatMap((a) => (a.articolo ? [[a.lettura, a.articolo.codice] as const] : [])));
    return (text) => {
      const codice = codeOf.get(text.trim());
      return codice === undefined ? articleRef(text) : { codice };
    };
  };
}
