/** Fields of `next` that differ from `current`; decimals are canonical strings on both sides, so === compares values. */
export function changes<T extends object>(current: object, next: T): Partial<T> {
  const cur = current as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== cur[k]) out[k] = v;
  return out as Partial<T>;
}

export const hasKeys = (o: object) => Object.keys(o).length > 0;
