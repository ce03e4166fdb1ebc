"use client";
import { Button, Group, Text } from "@mantine/core";
import { useState } from "react";

/**
 * Paging newest first over a `*.newest` read (a page of the rows below `prima`, null: the newest;
 * the answer's `prima` opens the next, older page). Remembers the pages seen, so "Più recenti" goes back.
 */
export function useNewestPages() {
  const [befores, setBefores] = useState<(number | null)[]>([null]);
  return {
    /** The `prima` of the page shown. */
    prima: befores.at(-1)!,
    page: befores.length,
    newer: () => setBefores((b) => (b.length > 1 ? b.slice(0, -1) : b)),
    older: (prima: number) => setBefores((b) => [...b, prima]),
    restart: () => setBefores([null]),
  };
}

/** The pager under a newest-first list: the page number, "Più recenti" and "Meno recenti". */
export function NewestPager({
  pages,
  olderPrima,
  busy,
}: {
  pages: ReturnType<typeof useNewestPages>;
  /** The answer's `prima`: null on the last page. */
  olderPrima: number | null;
  busy: boolean;
}) {
  return (
    <Group justify="space-between">
      <Text size="sm" c="dimmed" data-testid="pagina">
        Pagina {pages.page} · dal più recente
      </Text>
      {/* Side by side and equal even at 360 px, where they take the whole width: a narrower padding
          than the theme's, so "Meno recenti" is whole in half of that width. */}
      <Group gap="xs" grow style={{ flex: "1 1 240px", maxWidth: 360 }}>
        <Button variant="default" px="xs" disabled={pages.page === 1} onClick={pages.newer} data-testid="pagina-precedente">
          Più recenti
        </Button>
        <Button
          variant="default"
          px="xs"
          disabled={olderPrima === null || busy}
          onClick={() => olderPrima !== null && pages.older(olderPrima)}
          data-testid="pagina-successiva"
        >
          Meno recenti
        </Button>
      </Group>
    </Group>
  );
}
