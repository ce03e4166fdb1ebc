/**
 * The REST facade's addresses, for both edges: the transport serves under `REST_PREFIX`, and a service whose
 * answer points a client at a resource (a photo's `percorso`) takes the address from here rather than spelling
 * the facade's URL itself.
 */
export const REST_PREFIX = "/api/v1";

/** A REST path (`/movimenti?limite=5`) as a client requests it. */
export function restLink(path: string): string {
  return `${REST_PREFIX}${path}`;
}

/** Where photo `n` of a receiving difference is read (docs/api.md section 12). */
export function differencePhotoLink(difference: number, n: number): string {
  return restLink(`/differenze-ricevimento/${difference}/foto/${n}`);
}
