"use client";
import { Button, Group } from "@mantine/core";
import { useState } from "react";

/** Pages newest first: the bounds of the pages seen so far ([undefined] is the newest). */
export function usePages() {
  const [pages, setPages] = useState<(number | undefined)[]>([undefined]);
  const prima = pages[pages.length - 1];
  return {
    bound: prima === undefined ? {} : { prima },
    first: pages.length === 1,
    newer: () => setPages(pages.slice(0, -1)),
    older: (next: number | null | undefined) => next && setPages([...pages, next]),
    reset: () => setPages([undefined]),
  };
}

export function Pager({ pages, next }: { pages: ReturnType<typeof usePages>; next: number | null | undefined }) {
  if (pages.first && !next) return null;
  return (
    <Group gap="xs">
      <Button size="xs" variant="default" disabled={pages.first} onClick={pages.newer}>
        Più recenti
      </Button>
      <Button size="xs" variant="default" disabled={!next} onClick={() => pages.older(next)}>
        Meno recenti
      </Button>
    </Group>
  );
}
