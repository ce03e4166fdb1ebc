"use client";

/**
 * Feedback an operator notices without looking at the screen: a short high beep for success, a low
 * double buzz for a refusal (Web Audio, no sound files), and a vibration where the device has one.
 */
let audio: AudioContext | undefined;

function context(): AudioContext | undefined {
  if (typeof window === "undefined") return undefined;
  const Ctor = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!Ctor) return undefined;
  audio ??= new Ctor();
  if (audio.state === "suspended") void audio.resume();
  return audio;
}

function tone(ctx: AudioContext, at: number, freq: number, seconds: number, type: OscillatorType, volume: number) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(volume, at);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + seconds);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + seconds);
}

export type Outcome = "ok" | "ko" | "info";

/** The last outcome played, for tests and for anyone curious (data attribute on the page too). */
export function signal(outcome: Outcome): void {
  if (typeof document !== "undefined") document.body.dataset.ultimoSegnale = outcome;
  try {
    const ctx = context();
    if (ctx) {
      const t = ctx.currentTime + 0.01;
      if (outcome === "ok") tone(ctx, t, 1320, 0.12, "sine", 0.3);
      else if (outcome === "ko") {
        tone(ctx, t, 180, 0.22, "square", 0.25);
        tone(ctx, t + 0.3, 140, 0.3, "square", 0.25);
      } else tone(ctx, t, 880, 0.06, "sine", 0.15);
    }
  } catch {
    // No sound is no reason to fail a registration.
  }
  if (typeof navigator !== "undefined" && "vibrate" in navigator)
    navigator.vibrate(outcome === "ko" ? [200, 100, 200] : outcome === "ok" ? 60 : 0);
}
