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
