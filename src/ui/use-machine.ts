"use client";
import { useCallback, useRef, useState } from "react";

/**
 * A screen's state as a pure reducer (`step`) over named states and events, with the one synchronous view
 * a key handler or a scan queue needs: `now()` is the state after the last event sent, before React renders
 * it (a burst of scans reads what the scan before it did, not the last render's). The value lives in
 * `storage` when given (a remembered value, kept across reloads) and in the hook's own state otherwise; a
 * value the storage brings by itself (a remembered one read after mount) is taken as the state.
 *
 * @public the receiving screen (useReceiving) and the putaway screen (usePutaway)
 */
export function useMachine<S, E>(
  step: (state: S, event: E) => S,
  initial: S,
  storage?: readonly [S, (value: S) => void],
): { state: S; send: (event: E) => S; now: () => S } {
  const own = useState(initial);
  const [stored, store] = storage ?? own;
  const latest = useRef(stored);
  const seen = useRef(stored);
  // A new stored value: the one the last events made, or one the storage brought by itself (read after mount).
  // A render that has not caught up with the events yet shows an older value, already seen: not taken.
  if (seen.current !== stored) {
    seen.current = stored;
    latest.current = stored;
  }
  const stepRef = useRef(step);
  stepRef.current = step;
  const storeRef = useRef(store);
  storeRef.current = store;
  const send = useCallback((event: E) => {
    const next = stepRef.current(latest.current, event);
    if (next !== latest.current) {
      latest.current = next;
      storeRef.current(next);
    }
    return next;
  }, []);
  const now = useCallback(() => latest.current, []);
  return { state: stored, send, now };
}
