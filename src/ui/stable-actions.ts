"use client";
import { useLayoutEffect, useRef, useState } from "react";

/**
 * A hook's actions with one identity for the screen's life, each running the function of the latest
 * render: a screen's parts are memoised, and a new function at every render would render them all again.
 */
export function useStableActions<T extends Record<string, (...args: never[]) => unknown>>(actions: T): T {
  const latest = useRef(actions);
  useLayoutEffect(() => {
    latest.current = actions;
  });
  const [stable] = useState(
    () => Object.fromEntries(Object.keys(actions).map((name) => [name, (...args: never[]) => latest.current[name]!(...args)])) as T,
  );
  return stable;
}
