import type { ReceivePalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import { describeError } from "../../errors";
import type { PalletMark } from "./pallet-draft";

/** The long side of a difference photo as uploaded: enough to see a damage, far under the service's 5 MB. */
const LONG_SIDE = 1600;
const QUALITY = 0.8;

/**
 * A camera capture made small enough to upload (a phone's photo is 3–8 MB; the tRPC body, base64, must stay
 * under 5 MB): drawn on a canvas at most LONG_SIDE px long, as JPEG, in base64 without the data: prefix.
 */
export async function photoForUpload(file: Blob): Promise<{ tipo: "image/jpeg"; dati: string }> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error("Il file scelto non è un'immagine leggibile: scattare di nuovo la foto.");
  }
  const scale = Math.min(1, LONG_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext("2d")?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/jpeg", QUALITY));
  if (!blob) throw new Error("La foto non si è potuta preparare per l'invio: scattarla di nuovo.");
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = "";
  // In slices: String.fromCharCode with a whole image as arguments overflows the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { tipo: "image/jpeg", dati: btoa(text) };
}

/**
 * The photos of a pallet's marked rows, once the receipt created the differences they show: each to its row's
 * difference of the reason marked (the receipt's answer lists them with ids). One at a time, each with its
 * key (`upload`'s), so a retry after a dead spot stores it once. Answers how many went and why the others did not.
 */
export async function sendDifferencePhotos(
  out: ReceivePalletOutput,
  toUpload: Record<number, Blob>,
  marked: Record<number, PalletMark>,
  upload: (body: { differenza: number; tipo: "image/jpeg"; dati: string }) => Promise<void>,
): Promise<{ sent: number; failed: string[] }> {
  const failed: string[] = [];
  let sent = 0;
  for (const [indice, file] of Object.entries(toUpload)) {
    const row = out.righe.find((r) => r.indice === Number(indice));
    const d = row?.differenze?.find((x) => x.motivo === marked[Number(indice)]?.motivo);
    if (!d) {
      failed.push(`riga ${Number(indice) + 1} (nessuna differenza registrata)`);
      continue;
    }
    try {
      await upload({ differenza: d.id, ...(await photoForUpload(file)) });
      sent++;
    } catch (e) {
      failed.push(`riga ${Number(indice) + 1} (${e instanceof Error && !("data" in e) ? e.message : describeError(e).messaggio})`);
    }
  }
  return { sent, failed };
}
