-- Expiry of reservations as a stored state (docs/api.md section 14): every instance's worker
-- (modules/reservations/expiry-worker.ts) looks, at least once a minute, for the reservations `attiva` whose
-- `scade_il` has passed. Only those are indexed, so the look costs what is due, not the table.
CREATE INDEX "prenotazioni_scadenza_idx" ON "prenotazioni" ("scade_il") WHERE "stato" = 'attiva' AND "scade_il" IS NOT NULL;
