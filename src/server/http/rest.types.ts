import type { HeaderReader } from "../lib/headers";

/** A request as the REST core reads it. */
export interface RestRequest {
  method: string;
  /** Path and query string, e.g. `/api/v1/movimenti?dopo=0`. */
  url: string;
  headers: HeaderReader;
  /** The body's bytes; throws `richiesta_troppo_grande` as soon as more than `limit` bytes arrived. */
  readBody(limit: number): Promise<Uint8Array>;
}
