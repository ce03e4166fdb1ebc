import { useState } from "react";
import { describeError, describeWriteError, newIdempotencyKey, outcomeUnknown } from "./errors";
import { signal } from "./feedback";

/**
 * The Idempotency-Key of one form's write. The key stays while the same request's outcome is
 * unknown (no answer, a 5xx, the first attempt still running): pressing again with the same data
 * sends the same key, and the service replays the first write if it landed instead of writing it
 * twice. A definitive answer (done, or a refusal, stored under the key) or different data takes a
 * new key, so a corrected request is never answered with the old refusal.
 */
export class WriteKey {
  private last: { key: string; request: string } | null = null;

  /** The key for this request: the pending one if the request is the same, else a new one. */
  for(request: unknown): string {
    const text = JSON.stringify(request);
    if (this.last?.request !== text) this.last = { key: newIdempotencyKey(), request: text };
    return this.last.key;
  }

  /** After the call: without an error, or with a definitive one, the next request gets a new key. */
  settle(error?: unknown): void {
    if (error === undefined || !outcomeUnknown(describeError(error))) this.reset();
  }

  /** Forgets the pending key: the next request, even identical, is a new write. */
  reset(): void {
    this.last = null;
  }
}

export function useWriteKey(): WriteKey {
  return useState(() => new WriteKey())[0];
}

type Send<R, T> = (request: R, opts: { context: { idempotencyKey: string } }) => Promise<T>;

/**
 * A form's write, one piece for every form that saves: its busy flag, its error line (the form's own
 * checks write there too) and its WriteKey. `run` sends the request with its key and answers the
 * service's result; on a failure it shows the operator's message, signals "ko" and answers undefined.
 */
export function useWrite() {
  const key = useWriteKey();
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run<R, T>(request: R, send: Send<R, T>): Promise<T | undefined> {
    setSaving(true);
    setError(null);
    try {
      const out = await send(request, { context: { idempotencyKey: key.for(request) } });
      key.settle();
      return out;
    } catch (e) {
      key.settle(e);
      setError(describeWriteError(e).messaggio);
      signal("ko");
      return undefined;
    } finally {
      setSaving(false);
    }
  }
  return { saving, error, setError, run };
}
