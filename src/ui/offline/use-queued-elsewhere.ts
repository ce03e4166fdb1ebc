"use client";
import { useEffect, useState } from "react";
import { useUser } from "../session-context";
import { openUserDb, type UserStore } from "./local-db";
import { useOnline } from "./network";
import { isQueueOpen, useOpenQueuesVersion, useWaitingTotal } from "./waiting";

/** The user's queues of writes, and the screen that sends each. */
const QUEUES: readonly { store: UserStore; screen: string }[] = [
  { store: "coda", screen: "Ricevimento" },
  { store: "colli", screen: "Ricevimento" },
  { store: "stoccaggio", screen: "Stoccaggio" },
];

export interface QueuedElsewhere {
  count: number;
  /** The screens that send them, once each. */
  screens: string[];
}

/**
 * Writes kept on this handheld for the user in a queue whose screen is not open in this page (arrivals queued in
 * the receiving bay, seen from putaway): only that screen sends them, so the banner says how many and where. Read
 * from IndexedDB again whenever an open queue changes, a queue opens or closes, or the network comes and goes.
 */
export function useQueuedElsewhere(): QueuedElsewhere {
  const user = useUser();
  const total = useWaitingTotal();
  const version = useOpenQueuesVersion();
  const online = useOnline();
  const [found, setFound] = useState<QueuedElsewhere>({ count: 0, screens: [] });
  // biome-ignore lint/correctness/useExhaustiveDependencies: total, version and online are the moments to read again
  useEffect(() => {
    let live = true;
    const closed = QUEUES.filter((q) => !isQueueOpen(q.store));
    if (closed.length === 0) {
      setFound({ count: 0, screens: [] });
      return;
    }
    void openUserDb(user.id)
      .then(async (db) => {
        try {
          const counts = await Promise.all(closed.map(async (q) => (await db.all(q.store)).length));
          if (!live) return;
          const screens = [...new Set(closed.filter((_, i) => counts[i]! > 0).map((q) => q.screen))];
          setFound({ count: counts.reduce((a, b) => a + b, 0), screens });
        } finally {
          db.close();
        }
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [user.id, total, version, online]);
  return found;
}
