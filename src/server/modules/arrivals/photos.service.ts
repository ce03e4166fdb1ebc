import type { Db, Tx } from "../../db/client";
import { first } from "../../db/sql";
import { DomainError } from "../../lib/errors";
import { differencePhotoLink } from "../../lib/links";
import * as q from "./photos.queries";
import { MAX_PHOTO_BYTES, MAX_PHOTOS_PER_DIFFERENCE, type PhotoType } from "./photos.schemas";

/**
 * Photos of a receiving difference (docs/api.md section 12): JPEG or PNG, up to 5 MB, at most 5 per difference,
 * kept in PostgreSQL (`foto_differenze`). REST sends the image's bytes as the body (http/binary-body.ts),
 * the UI the same bytes in base64 through tRPC (`notices.addDifferencePhoto`): both end here.
 */

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Whether the bytes start as the declared image does: a PNG's signature, a JPEG's SOI marker (FF D8 FF). */
function looksLike(tipo: PhotoType, bytes: Uint8Array): boolean {
  if (tipo === "image/png") return PNG_SIGNATURE.every((b, i) => bytes[i] === b);
  return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

function photoTooLarge(): DomainError {
  return new DomainError("richiesta_troppo_grande", "La foto supera 5 MB: ridurne la risoluzione o la qualità e inviarla di nuovo.");
}

/** The checks that need no database: size and content (the type itself is checked by each channel). */
export function assertPhoto(tipo: PhotoType, bytes: Uint8Array): void {
  if (bytes.byteLength > MAX_PHOTO_BYTES) throw photoTooLarge();
  if (bytes.byteLength === 0) throw new DomainError("foto_non_valida", "La foto è vuota: inviare i byte dell'immagine.");
  if (!looksLike(tipo, bytes))
    throw new DomainError(
      "foto_non_valida",
      `Il contenuto non è un'immagine ${tipo === "image/png" ? "PNG" : "JPEG"} come dichiarato: controllare il Content-Type o il file.`,
    );
}

const unknownDifference = (id: number) =>
  new DomainError("non_trovato", `Differenza di ricevimento ${id} sconosciuta: gli id sono in GET /differenze-ricevimento.`);

export interface PhotoAdded {
  differenza: number;
  n: number;
  tipo: PhotoType;
  dimensione: number;
  percorso: string;
}

/** The bytes of a base64 text (the schema checked its alphabet). */
export function fromBase64(text: string): Uint8Array {
  return Buffer.from(text, "base64");
}

/** Adds a photo to a difference, numbered 1..5 in the order they came; the difference's row lock serialises uploads. */
export async function addPhoto(tx: Tx, id: number, tipo: PhotoType, bytes: Uint8Array): Promise<PhotoAdded> {
  assertPhoto(tipo, bytes);
  if (!(await first(tx, q.lockDifference(id)))) throw unknownDifference(id);
  const added = await first(tx, q.insertPhoto(id, MAX_PHOTOS_PER_DIFFERENCE, tipo, bytes));
  if (!added)
    throw new DomainError(
      "troppe_foto",
      `La differenza ${id} ha già ${MAX_PHOTOS_PER_DIFFERENCE} foto, il massimo: non se ne possono aggiungere altre.`,
    );
  const n = added.n;
  return { differenza: id, n, tipo, dimensione: bytes.byteLength, percorso: differencePhotoLink(id, n) };
}

/** Photo `n` of a difference: its type and bytes. */
export async function photoOf(db: Db, id: number, n: number): Promise<{ tipo: PhotoType; dati: Uint8Array }> {
  const found = await first(db, q.photo(id, n));
  if (found) return { tipo: found.tipo as PhotoType, dati: found.dati };
  if (!(await first(db, q.differenceExists(id)))) throw unknownDifference(id);
  throw new DomainError("non_trovato", `La differenza ${id} non ha la foto ${n}: le foto sono numerate da 1 in ordine di invio.`);
}
