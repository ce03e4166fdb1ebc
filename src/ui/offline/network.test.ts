import { TRPCClientError } from "@trpc/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { describeError, describeWriteError, outcomeUnknown } from "../errors";
import { OfflineError, REQUEST_TIMEOUT_MS, RequestTimeoutError, timedFetch } from "./network";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** A fetch that never answers, but gives up when its signal aborts, as the browser's does. */
function hangingFetch() {
  return vi.fn(
    (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      }),
  );
}

describe("timedFetch", () => {
  it("gives up after 8 s with its own error, and asks /api/health whether the service is there", async () => {
    vi.useFakeTimers();
    const fetch = hangingFetch();
    vi.stubGlobal("fetch", fetch);
    const call = timedFetch("/api/trpc/x");
    const failed = expect(call).rejects.toBeInstanceOf(RequestTimeoutError);
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
    expect(fetch.mock.calls.map((c) => String(c[0]))).toContain("/api/health");
  });

  it("refuses at once, without a request, when the browser is offline", async () => {
    const fetch = hangingFetch();
    vi.stubGlobal("fetch", fetch);
    vi.stubGlobal("navigator", { onLine: false });
    await expect(timedFetch("/api/trpc/x")).rejects.toBeInstanceOf(OfflineError);
    expect(fetch).not.toHaveBeenCalled();
  });

  it("keeps a caller's abort an abort, not a timeout", async () => {
    vi.stubGlobal("fetch", hangingFetch());
    const controller = new AbortController();
    const call = timedFetch("/api/trpc/x", { signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
  });

  it("hands back the answer, read whole, with its status", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response('{"ok":1}', { status: 422, headers: { "content-type": "application/json" } })),
    );
    const res = await timedFetch("/api/trpc/x");
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ ok: 1 });
  });
});

describe("the screens' error helpers", () => {
  // As the tRPC links hand them over: a TRPCClientError whose cause is the fetch's error.
  const timeout = TRPCClientError.from(new RequestTimeoutError());
  const offline = TRPCClientError.from(new OfflineError());

  it("name a timeout and an offline refusal in Italian, each as its own kind", () => {
    expect(describeError(timeout)).toEqual({
      codice: "timeout",
      messaggio: expect.stringMatching(/^Nessuna risposta dal servizio in 8 s: /),
    });
    expect(describeError(offline)).toEqual({ codice: "offline", messaggio: expect.stringMatching(/^Offline: /) });
  });

  it("treat both as a write of unknown outcome, to press again with the same key", () => {
    for (const e of [timeout, offline]) {
      expect(outcomeUnknown(describeError(e))).toBe(true);
      expect(describeWriteError(e).messaggio).toMatch(/potrebbe essere avvenuta oppure no/);
    }
    expect(describeWriteError(timeout).messaggio).toMatch(/^Nessuna risposta dal servizio in 8 s: /);
  });
});
