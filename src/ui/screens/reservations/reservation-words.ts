import type { ScreenReservationOutput } from "@/server/modules/reservations/reservations-screens.schemas";

type Stato = ScreenReservationOutput["stato"];

/** A reservation's state in a manager's words (docs/operator-guide.md). */
export const STATE_LABEL: Record<Stato, string> = {
  attiva: "Attiva",
  in_prelievo: "In prelievo",
  evasa: "Evasa",
  annullata: "Annullata",
  scaduta: "Scaduta",
};

export const STATE_COLOR: Record<Stato, string> = {
  attiva: "green.8",
  in_prelievo: "blue.8",
  evasa: "dark.4",
  annullata: "dimmed",
  scaduta: "orange.8",
};

/** Quantities have at most 3 decimals (docs/api.md section 5): thousandths as integers add up exactly. */
const thousandths = (v: string) => Math.round(Number(v) * 1000);

/**
 * What releasing gives back, as text: held and not yet picked (what is picked stays held, docs/api.md
 * section 14). "0" when nothing would change.
 */
export function releasable(p: ScreenReservationOutput): string {
  const t = p.righe.reduce((s, r) => s + Math.max(0, thousandths(r.prenotata) - thousandths(r.prelevata)), 0);
  return String(t / 1000);
}

/** Releasable from the screen: in force and holding something not yet picked. */
export const mayRelease = (p: ScreenReservationOutput) => p.stato === "attiva" && releasable(p) !== "0";
