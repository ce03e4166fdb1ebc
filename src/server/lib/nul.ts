/**
 * PostgreSQL text cannot hold U+0000: a string carrying it fails inside the database with an
 * encoding error, which would reach the client as a 500. Every input is checked for it at the edge,
 * before validation, so the refusal names the field like any other validation error.
 */
export const NUL_MESSAGE = "contiene il carattere nullo (U+0000), che non è ammesso nel testo: toglierlo e ripetere";

/** A value met by the walk; its path is rebuilt from the parent links only when it holds a U+0000. */
interface Visit {
  value: unknown;
  key?: PropertyKey;
  parent?: Visit;
}

function pathOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) path.push(v.key!);
  return path.reverse();
}

/**
 * The paths of the strings (values or keys) in `value` that contain U+0000, at most `limit` of them.
 * Iterative, not recursive: bodies may nest as deep as the JSON parser allows. A path is built only
 * for what is found: building one per value, or even keeping parent links, made a large body's check cost
 * far more than the rest of its handling.
 */
export function nulPaths(value: unknown, limit = 100): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const stack: Visit[] = [{ value }];
  while (stack.length > 0 && found.length < limit) {
    const visit = stack.pop()!;
    const v = visit.value;
    if (typeof v === "string") {
      if (v.includes("\u0000")) found.push(pathOf(visit));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: visit });
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        if (k.includes("\u0000")) found.push(pathOf({ value: k, key: k, parent: visit }));
        else stack.push({ value: (v as Record<string, unknown>)[k], key: k, parent: visit });
      }
    }
  }
  return found;
}
