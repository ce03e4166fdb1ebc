import http from "node:http";
import https from "node:https";
import { Webhook } from "standardwebhooks";
import { assertDeliverable, checkedLookup, PrivateNetworkError } from "./network";

/**
 * One attempt of one message, as the Standard Webhooks specification describes it: a POST of its JSON (an
 * event, or a batch of them: messages.ts) with `webhook-id` (the event's id, or the batch's msg_<first>_<last>;
 * the same on every attempt, so a receiver can drop a repeat),
 * `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 with the endpoint's whsec_ secret, made by the
 * specification's own library). Done on a 2xx within the timeout; anything else is a failed attempt,
 * described for the attempts log with the first kilobyte of the answer.
 */

export const ANSWER_LOG_BYTES = 1024;

export interface AttemptOutcome {
  esito: "consegnato" | "rifiutato" | "timeout" | "errore_rete" | "rete_privata";
  stato_http: number | null;
  risposta: string | null;
  durata_ms: number;
}

/** The signed headers of one message. */
export function signedHeaders(secret: string, msgId: string, body: string, at: Date = new Date()): Record<string, string> {
  return {
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(msgId, at, body),
  };
}

export function sendWebhook(
  endpoint: { url: string; segreto: string },
  msgId: string,
  body: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (o: Omit<AttemptOutcome, "durata_ms">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...o, durata_ms: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(endpoint.url);
      assertDeliverable(url, opts.allowPrivate);
    } catch (e) {
      const privateNet = e instanceof PrivateNetworkError;
      return done({ esito: privateNet ? "rete_privata" : "errore_rete", stato_http: null, risposta: (e as Error).message });
    }
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(url, {
      method: "POST",
      lookup: checkedLookup(opts.allowPrivate),
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "user-agent": "Banchina-Webhook/1",
        ...signedHeaders(endpoint.segreto, msgId, body),
      },
    });
    // The whole attempt, answer included, within the timeout: a receiver that hangs is cut and retried.
    timer = setTimeout(() => {
      done({ esito: "timeout", stato_http: null, risposta: `Nessuna risposta completa entro ${opts.timeoutMs} ms.` });
      req.destroy();
    }, opts.timeoutMs);
    req.on("error", (e) => {
      const privateNet = e instanceof PrivateNetworkError;
      done({ esito: privateNet ? "rete_privata" : "errore_rete", stato_http: null, risposta: e.message.slice(0, ANSWER_LOG_BYTES) });
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < ANSWER_LOG_BYTES) chunks.push(c);
        size += c.length;
      });
      res.on("error", () => {});
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).subarray(0, ANSWER_LOG_BYTES).toString("utf8");
        done({ esito: status >= 200 && status < 300 ? "consegnato" : "rifiutato", stato_http: status, risposta: text });
      });
    });
    req.end(body);
  });
}
