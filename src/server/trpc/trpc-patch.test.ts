import { initTRPC } from "@trpc/server";
import { describe, expect, it } from "vitest";

/**
 * patches/@trpc+server+11.22.1.patch (applied by patch-package at `npm install`) replaces the helper tRPC
 * copies a call's options and context with by Object.assign: the property-by-property copy was a visible part
 * of the CPU each write spends in tRPC (docs/performance.md).
 * What the copies carry must be what it was: a middleware's context reaches the next, a context's own
 * "__proto__" key stays a key and never becomes the merged context's prototype.
 */
const t = initTRPC.context<{ a: number }>().create();

describe("tRPC con la copia delle opzioni di patches/", () => {
  it("passa il contesto esteso da un middleware al successivo e alla procedura, senza toccare l'originale", async () => {
    const ctx = { a: 1 };
    const seen: unknown[] = [];
    const procedure = t.procedure
      .use(({ next }) => next({ ctx: { b: 2 } }))
      .use(({ ctx, next }) => {
        seen.push({ ...ctx });
        return next({ ctx: { a: 3 } });
      })
      .query(({ ctx }) => ctx);
    const router = t.router({ p: procedure });
    const out = await t.createCallerFactory(router)(ctx).p();
    expect(seen).toEqual([{ a: 1, b: 2 }]);
    expect(out).toEqual({ a: 3, b: 2 });
    expect(ctx).toEqual({ a: 1 });
  });

  it("tiene '__proto__' di un contesto come chiave propria: non diventa il prototipo del contesto unito", async () => {
    // An object with an own "__proto__" key, as JSON.parse makes it.
    const extra = JSON.parse('{"b":2,"__proto__":{"inquinato":true}}') as Record<string, unknown>;
    const procedure = t.procedure.use(({ next }) => next({ ctx: extra })).query(({ ctx }) => ctx as Record<string, unknown>);
    const router = t.router({ p: procedure });
    const out = await t.createCallerFactory(router)({ a: 1 }).p();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out.inquinato).toBeUndefined();
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect({ a: out.a, b: out.b }).toEqual({ a: 1, b: 2 });
  });
});
