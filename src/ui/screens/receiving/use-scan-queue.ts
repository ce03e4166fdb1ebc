"use client";
import { useRef, useState } from "react";
import type { ScanOutput as SearchOutput } from "@/server/modules/arrivals/arrivals.schemas";
import type { Feedback } from "./types";

/**
 * A code read, with its answer when it was already looked up (a product code read into the lot field).
 * `before`: what happened to the row that waited for it (registered, discarded), said with the new row.
 */
interface QueuedScan {
  code: string;
  res?: SearchOutput;
  before?: Feedback;
}

/**
 * The receiving bay's codes, read one at a time in the order they came: `read` (the screen's reading of one
 * code, of the render that started the pass) is awaited before the next is taken. The codes not yet taken are
 * shown (`waiting`). A dialog open (a cancellation being confirmed) pauses the queue: the codes wait, shown,
 * until it closes.
 */
export function useScanQueue(read: (scan: QueuedScan) => Promise<void>) {
  const scans = useRef<QueuedScan[]>([]);
  const pumping = useRef(false);
  const paused = useRef(false);
  const [waiting, setWaiting] = useState<string[]>([]);
  const show = () => setWaiting(scans.current.map((q) => q.code));

  async function pump() {
    if (pumping.current) return;
    pumping.current = true;
    try {
      while (!paused.current && scans.current.length > 0) {
        const next = scans.current.shift()!;
        show();
        await read(next);
      }
    } finally {
      pumping.current = false;
    }
  }

  return {
    waiting,
    /** Codes to read after the ones waiting. */
    add(entries: QueuedScan[]) {
      scans.current.push(...entries);
      show();
      void pump();
    },
    /** Codes to read before the ones waiting: they waited for a row, and came first. */
    addFirst(entries: QueuedScan[]) {
      scans.current.unshift(...entries);
      show();
      void pump();
    },
    /** Every code waiting, taken out of the queue: the screen stops on a choice, and holds them itself. */
    takeAll(): string[] {
      const codes = scans.current.splice(0).map((q) => q.code);
      show();
      return codes;
    },
    pause() {
      paused.current = true;
    },
    resume() {
      paused.current = false;
      void pump();
    },
  };
}
