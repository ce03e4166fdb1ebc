import { describe, expect, test } from "vitest";
import { z } from "zod";
import { syncParse } from "./zod";

describe("syncParse", () => {
  test("same data and same errors as the asynchronous parse it replaces", async () => {
    const make = () => z.object({ id: z.number().int(), righe: z.array(z.object({ q: z.string() })) });
    const fast = syncParse(make());
    const plain = make();
    const good = { id: 3, righe: [{ q: "1.5" }], extra: true };
    expect(await fast.parseAsync(good)).toEqual(await plain.parseAsync(good));
    const bad = { id: 1.5, righe: [{ q: 2 }] };
    const [e1, e2] = await Promise.all([fast.parseAsync(bad).catch((e: unknown) => e), plain.parseAsync(bad).catch((e: unknown) => e)]);
    expect(e1).toBeInstanceOf(z.ZodError);
    expect((e1 as z.ZodError).issues).toEqual((e2 as z.ZodError).issues);
  });

  test("a schema with an asynchronous refinement still validates, asynchronously", async () => {
    const schema = syncParse(z.object({ codice: z.string().refine(async (v) => v.startsWith("A"), "deve iniziare per A") }));
    await expect(schema.parseAsync({ codice: "A-1" })).resolves.toEqual({ codice: "A-1" });
    await expect(schema.parseAsync({ codice: "B-1" })).rejects.toThrow("deve iniziare per A");
  });
});
