/**
 * What the server reads of a request's headers, whatever carried the request: a Fetch `Headers`
 * satisfies it, and so does a view over Node's `IncomingMessage.headers` (see `serveNodeRest` in http/rest-handler.ts)
 * that skips building a `Headers` object per request. Names are lower case.
 */
export interface HeaderReader {
  get(name: string): string | null;
}
