import { useState } from "react";
import { describeError, newIdempotencyKey, outcomeUnknown } from "./errors";

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
    if (error === undefined || !outcomeUnknown(describeError(error))) this.last = null;
  }
}

export function useWriteKey(): WriteKey {
  return useState(() => new WriteKey())[0];
}
