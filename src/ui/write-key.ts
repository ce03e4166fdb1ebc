import { type UseMutationOptions, useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { type DescribedError, describeError, describeWriteError, newIdempotencyKey, outcomeUnknown } from "./errors";
import { signal } from "./feedback";

/**
 * Per-call options of a mutation: its Idempotency-Key, when it is a write that must never run twice.
 * The tRPC link of the mutations (providers.tsx) reads it and sends it as the `Idempotency-Key` header.
 */
export interface CallContext {
  idempotencyKey?: string;
  [key: string]: unknown;
}

/**
 * The Idempotency-Key of one form's write. The key stays while the same request's outcome is
 * unknown (no answer, a 5xx, the first attempt still running): pressing again with the same data
 * sends the same key, and the service replays the first write if it landed instead of writing it
 * twice. A definitive answer (done, or a refusal, stored under the key) or different data takes a
 * new key, so a corrected request is never answered with the old refusal.
 */
export class WriteKey {
  private last: { key: string; request: string } | null = null;

  /**
   * The tRPC context of this form's mutation (`mutationOptions({ trpc: { context } })`): one object for
   * the form's life, whose key `for` sets just before each call, so the header carries the key of the
   * request being sent.
   */
  readonly context: CallContext = {};

  /** The key for this request: the pending one if the request is the same, else a new one. */
  for(request: unknown): string {
    const text = JSON.stringify(request);
    if (this.last?.request !== text) this.last = { key: newIdempotencyKey(), request: text };
    this.context.idempotencyKey = this.last.key;
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

/**
 * A form's write, one piece for every form that saves: the mutation (TanStack Query, so the 401 of an
 * ended session reaches the mutation cache's redirect), its error line (the form's own checks write there
 * too) and its WriteKey. `options` builds the tRPC mutation options from the key's context, for example
 * `(context) => trpc.movements.write.mutationOptions({ trpc: { context } })`. `run` sends the request with
 * its key and answers the service's result; on a failure it shows the operator's message (`explain`'s,
 * when the screen has words of its own for that refusal), keeps the refusal in `failure`, signals "ko"
 * and answers undefined.
 */
export function useWrite<TOutput, TError, TInput, TContext>(
  options: (context: CallContext) => UseMutationOptions<TOutput, TError, TInput, TContext>,
  explain?: (failure: DescribedError) => string | undefined,
) {
  const key = useWriteKey();
  const mutation = useMutation(options(key.context));
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<DescribedError | null>(null);
  async function run(request: TInput): Promise<TOutput | undefined> {
    setError(null);
    setFailure(null);
    key.for(request);
    try {
      const out = await mutation.mutateAsync(request);
      key.settle();
      return out;
    } catch (e) {
      key.settle(e);
      const described = describeWriteError(e);
      setFailure(described);
      setError(explain?.(described) ?? described.messaggio);
      signal("ko");
      return undefined;
    }
  }
  return { saving: mutation.isPending, error, failure, setError, run };
}
