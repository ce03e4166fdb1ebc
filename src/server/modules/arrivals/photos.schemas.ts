import { z } from "zod";
import { idNumber, pathId } from "../../lib/zod";

/** Photos of receiving differences (docs/api.md section 12). Shared by the REST procedures and the UI. */

export const PHOTO_TYPES = ["image/jpeg", "image/png"] as const;
export type PhotoType = (typeof PHOTO_TYPES)[number];
/** 5 MB of image (the decoded bytes, whichever channel carried them). */
export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
export const MAX_PHOTOS_PER_DIFFERENCE = 5;

const photoType = z.enum(PHOTO_TYPES, { error: "deve essere image/jpeg o image/png" });
/** Base64 (standard alphabet, padding optional); its size is the body limit's, and the service's on the bytes (413). */
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, "deve essere l'immagine in base64");

/**
 * REST: `POST /differenze-ricevimento/{id}/foto` with the image as the body; the REST core
 * (http/binary-body.ts) hands the procedure its type and bytes in base64, as the UI's mutation takes them.
 */
export const addPhotoInput = z.strictObject({ id: pathId(), tipo: photoType, dati: base64 });

/** The UI (tRPC `notices.addDifferencePhoto`): the difference's id as receive's answer gives it. */
export const addDifferencePhotoInput = z.strictObject({
  differenza: idNumber().meta({ description: "Id della differenza (POST /colli/{sscc}/ricevi: righe[].differenze[].id)" }),
  tipo: photoType,
  dati: base64.meta({ description: "L'immagine in base64, al massimo 5 MB decodificata" }),
});

export const photoAddedOutput = z.object({
  differenza: z.number().int(),
  n: z.number().int().meta({ description: "Numero della foto (1..5), per GET /differenze-ricevimento/{id}/foto/{n}" }),
  tipo: photoType,
  dimensione: z.number().int().meta({ description: "Byte dell'immagine" }),
  percorso: z.string().meta({ description: "Dove leggerla: /api/v1/differenze-ricevimento/{id}/foto/{n}" }),
});

export const photoInput = z.strictObject({ id: pathId(), n: pathId() });
/** The UI's read of a photo (the managers' screen): its bytes in base64. */
export const differencePhotoInput = z.strictObject({ differenza: idNumber(), n: idNumber() });
export const differencePhotoOutput = z.object({ tipo: photoType, dati: z.string() });
/** The binary GET answers the file; its JSON output stays empty. */
export const photoFileOutput = z.object({});
