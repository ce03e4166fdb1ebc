import type pg from "pg";
import { businessDate } from "../../src/server/lib/dates";
import * as floor from "../floor/movements";
import { rng } from "../util";
import { withClient, type Ctx } from "./harness";

/** Single-row movement requests, shared by the movement writers and the writers-and-reader scenario. */

export interface Article {
  id: number;
  codice: string;
}

export async function plainArticles(ctx: Ctx, n: number): Promise<Article[]> {
  return withClient(
    ctx.pool,
    async (c) =>
      (
        await c.query<Article>(
          `SELECT id, codice FROM articoli WHERE NOT ha_varianti AND NOT gestione_lotti ORDER BY hashint4(id) LIMIT $1`,
          [n],
        )
      ).rows,
  );
}

/** One movement request: alternating loads and unloads of one unit on random articles and warehouses. */
export function movementPlan(articles: Article[], seed: number) {
  const rand = rng(seed);
  return (i: number) => {
    const a = articles[Math.floor(rand() * articles.length)]!;
    return { article: a, magazzino: 1 + Math.floor(rand() * 3), natura: (i % 2 === 0 ? "carico" : "scarico") as "carico" | "scarico" };
  };
}

export async function apiMovement(ctx: Ctx, m: ReturnType<ReturnType<typeof movementPlan>>): Promise<number> {
  const r = await ctx.api.json<{ scritte: number; righe: { movimento?: number }[] }>("POST", "/movimenti", {
    natura: m.natura,
    magazzino: m.magazzino,
    righe: [{ codice: m.article.codice, quantita: 1, prezzo: "1.5" }],
  });
  if (r.data.scritte !== 1) throw new Error(`POST /movimenti: riga non scritta: ${JSON.stringify(r.data).slice(0, 300)}`);
  return r.data.righe[0]!.movimento!;
}

export function floorMovement(ctx: Ctx, c: pg.ClientBase, m: ReturnType<ReturnType<typeof movementPlan>>): Promise<number> {
  return floor.writeMovement(c, {
    natura: m.natura,
    magazzino: m.magazzino,
    articolo: m.article.id,
    quantita: "1",
    prezzo: "1.5",
    data: businessDate(ctx.timeZone),
    chiave: ctx.key.id,
  });
}
