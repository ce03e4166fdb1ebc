"use client";
import { Alert, Button, Stack, Text } from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import { Modal } from "../lazy-modal";

interface DetectedBarcode {
  rawValue: string;
}
interface BarcodeDetectorLike {
  detect(source: HTMLVideoElement): Promise<DetectedBarcode[]>;
}
type BarcodeDetectorCtor = new (opts?: { formats?: string[] }) => BarcodeDetectorLike;

function detectorCtor(): BarcodeDetectorCtor | undefined {
  if (typeof window === "undefined") return undefined;
  return (window as unknown as { BarcodeDetector?: BarcodeDetectorCtor }).BarcodeDetector;
}

/**
 * Scanning with the device camera, where the browser offers BarcodeDetector (Chrome on Android, for
 * example) and a camera in a secure context; elsewhere the button is not shown at all.
 */
export function CameraScanner({ onCode }: { onCode: (code: string) => void }) {
  const [available, setAvailable] = useState(false);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const videoRef = useRef<HTMLVideoElement>(null);

  useEffect(() => {
    setAvailable(detectorCtor() !== undefined && typeof navigator.mediaDevices?.getUserMedia === "function");
  }, []);

  useEffect(() => {
    if (!open) return;
    const Ctor = detectorCtor();
    if (!Ctor) return;
    let stream: MediaStream | undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    let stopped = false;
    const detector = new Ctor({ formats: ["ean_13", "ean_8", "code_128", "data_matrix", "qr_code", "upc_a"] });
    (async () => {
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
        if (stopped || !videoRef.current) return;
        videoRef.current.srcObject = stream;
        await videoRef.current.play();
        timer = setInterval(async () => {
          if (!videoRef.current) return;
          const found = await detector.detect(videoRef.current).catch(() => []);
          const code = found[0]?.rawValue;
          if (code && !stopped) {
            stopped = true;
            setOpen(false);
            onCode(code);
          }
        }, 250);
      } catch (e) {
        setError(`Fotocamera non disponibile: ${(e as Error).message}`);
      }
    })();
    return () => {
      stopped = true;
      if (timer) clearInterval(timer);
      stream?.getTracks().forEach((t) => t.stop());
    };
  }, [open, onCode]);

  if (!available) return null;
  return (
    <>
      <Button variant="light" onClick={() => (setError(null), setOpen(true))} data-testid="fotocamera">
        Fotocamera
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Inquadrare il codice" fullScreen>
        <Stack>
          {error ? <Alert color="red">{error}</Alert> : <Text c="dimmed">Tenere il codice a 10–20 cm, ben illuminato.</Text>}
          <video ref={videoRef} playsInline muted style={{ width: "100%", borderRadius: 8, background: "#000" }} />
          <Button size="lg" variant="default" onClick={() => setOpen(false)}>
            Chiudi
          </Button>
        </Stack>
      </Modal>
    </>
  );
}
