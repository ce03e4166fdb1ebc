import { DomainError } from "../lib/errors";
import { MAX_PHOTO_BYTES, PHOTO_TYPES, type PhotoType } from "../modules/arrivals/photos.schemas";
import type { RestRequest } from "./rest.types";

/**
 * The one REST body that is not JSON: a photo of a receiving difference (docs/api.md section 12,
 * `POST /differenze-ricevimento/{id}/foto`, the image's bytes with `Content-Type: image/jpeg` or `image/png`).
 * The REST core takes the body from here instead of its JSON parse for a procedure whose meta says
 * `binaryBody: "image"`: the procedure then reads `{ tipo, dati }` (the bytes in base64), the same input the
 * UI's tRPC mutation sends, so one schema and one service serve both channels.
 */

function photoTooLarge(): DomainError {
  return new DomainError("richiesta_troppo_grande", "La foto supera 5 MB: ridurne la risoluzione o la qualità e inviarla di nuovo.");
}

/** The image's type, from the Content-Type's media type (parameters such as `; charset` ignored). */
function photoType(contentType: string | null): PhotoType {
  const media = contentType?.split(";")[0]?.trim().toLowerCase();
  const found = PHOTO_TYPES.find((t) => t === media);
  if (found) return found;
  throw new DomainError(
    "tipo_contenuto_non_supportato",
    `La foto va inviata come immagine: 'Content-Type: image/jpeg' o 'image/png'${contentType ? `, non '${contentType.slice(0, 80)}'` : ""}.`,
  );
}

/** Reads the image body (refusing query parameters as every write does) into the procedure's input. */
export async function binaryBody(req: RestRequest, params: URLSearchParams): Promise<Record<string, unknown>> {
  for (const key of params.keys())
    throw new DomainError("filtro_non_valido", `Parametro '${key}' non previsto: la foto è il corpo della richiesta.`, { campo: key });
  // The size before the type, in the JSON core's order: a body over the limit is 413 whatever it claims to be.
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > MAX_PHOTO_BYTES) throw photoTooLarge();
  let bytes: Uint8Array;
  try {
    bytes = await req.readBody(MAX_PHOTO_BYTES);
  } catch (e) {
    // The core's reader refuses past the limit with the generic message: this one names the photo.
    if (e instanceof DomainError && e.codice === "richiesta_troppo_grande") throw photoTooLarge();
    throw e;
  }
  const tipo = photoType(req.headers.get("content-type"));
  return { tipo, dati: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
}
