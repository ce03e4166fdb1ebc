"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import type { NoticeOutput } from "../../../server/modules/notices/notices.schemas";
import type { UserDb } from "../../offline/local-db";
import { useKeptCopy } from "../../offline/use-kept-copy";
import { useTRPC } from "../../trpc";
import type { ExpectedCopy } from "./local-lookup";
import { type PalletCopy, palletsFromNotices } from "./pallet-copy";

const REFRESH_MS = 60_000;
/** The key of the pallets' copy in the store "attesi" (whose other keys are warehouse ids). */
const KEY = "colli";
/** A guard against a feed that never ends: 50 pages of 100 notices is far beyond a dock's open notices. */
const MAX_PAGES = 50;

/**
 * The handheld's copy of the announced pallets (pallet-copy.ts), kept in the user's IndexedDB and fetched
 * again every minute while online and after a receipt. `copyRef` is what a scan reads offline. Fetched only
 * once the operator chose a warehouse (`active`), as the expected rows' copy: the screen's page brings its
 * first reads with it and asks for nothing more until the operator starts.
 */
export function usePalletCopy(db: UserDb | null, online: boolean, active: boolean) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const { copyRef, settled, keep } = useKeptCopy<PalletCopy>(db, "attesi", KEY);
  const fetching = useRef(false);

  const refresh = useCallback(async () => {
    if (!db || !online || !active || fetching.current) return;
    fetching.current = true;
    try {
      const avvisi: NoticeOutput[] = [];
      for (const stato of ["atteso", "in_ricevimento"] as const) {
        let dopo = "0";
        for (let page = 0; page < MAX_PAGES; page++) {
          const out = await client.fetchQuery({ ...trpc.notices.list.queryOptions({ stato, limite: "100", dopo }), staleTime: 0 });
          avvisi.push(...out.avvisi);
          if (!out.altri || out.cursore === undefined) break;
          dopo = String(out.cursore);
        }
      }
      // The remainders of the rows, from the expected copies of every warehouse kept on the device.
      const righe = (await db.entries("attesi")).flatMap((e) => (e.key === KEY ? [] : ((e.value as ExpectedCopy).righe ?? [])));
      const fresh = palletsFromNotices(avvisi, { righe } as ExpectedCopy, Date.now());
      await keep(fresh);
    } catch {
      // No answer: the copy kept stays.
    } finally {
      fetching.current = false;
    }
  }, [client, trpc, db, online, active, keep]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  return { copyRef, settled, refresh };
}
