-- A lot passing its expiry uncovers reservations (docs/api.md section 14): nothing is written when the date
-- passes, so the expiry worker (reservations/expiry.service.ts sweepExpiredLots) looks once a day, across
-- instances, at the (article, warehouse) pairs that hold something and have a lot expired since it last looked,
-- and runs the uncovering on them. This one row is the day it last looked (NULL: never, so the first sweep looks
-- at every lot already expired), and the lock that makes one instance's sweep do it (FOR UPDATE SKIP LOCKED).
CREATE TABLE "scadenze_lotti_controllo" (
    "id" INTEGER NOT NULL DEFAULT 1 CHECK ("id" = 1),
    "giorno" DATE,
    CONSTRAINT "scadenze_lotti_controllo_pkey" PRIMARY KEY ("id")
);
INSERT INTO "scadenze_lotti_controllo" ("id", "giorno") VALUES (1, NULL);
