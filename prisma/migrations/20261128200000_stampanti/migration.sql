-- Label printers (docs/api.md section 13): network printers an administrator registers, and their print jobs.
-- A printer is an address the service connects to, so only an administrator adds one (the administrative
-- log keeps the address). A job carries the ZPL drawn when it was asked for: the worker sends those bytes
-- and nothing else, so what prints is what the request meant even if the article changes meanwhile.
CREATE TABLE "stampanti" (
    "id" SERIAL NOT NULL,
    "nome" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "porta" INTEGER NOT NULL DEFAULT 9100,
    "dimensione" TEXT NOT NULL DEFAULT '100x50',
    "attiva" BOOLEAN NOT NULL DEFAULT true,
    "creata_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "stampanti_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "stampanti_porta_check" CHECK ("porta" BETWEEN 1 AND 65535),
    CONSTRAINT "stampanti_dimensione_check" CHECK ("dimensione" IN ('100x50', '100x150', '50x25'))
);
CREATE UNIQUE INDEX "stampanti_nome_key" ON "stampanti"("nome");

-- `in_invio` is the claim: a job leaves `in_coda` once, in one statement with FOR UPDATE SKIP LOCKED, so
-- two instances never send it both; a job found still `in_invio` after its instance died is `fallita`
-- ("esito incerto"), never sent again.
CREATE TABLE "stampe" (
    "id" SERIAL NOT NULL,
    "stampante_id" INTEGER NOT NULL,
    "stato" TEXT NOT NULL DEFAULT 'in_coda',
    "etichetta" JSONB NOT NULL,
    "copie" INTEGER NOT NULL DEFAULT 1,
    "zpl" TEXT NOT NULL,
    "avviso" TEXT,
    "motivo" TEXT,
    "autore" TEXT NOT NULL,
    "creata_il" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "inviata_il" TIMESTAMPTZ(3),
    "conclusa_il" TIMESTAMPTZ(3),
    CONSTRAINT "stampe_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "stampe_stato_check" CHECK ("stato" IN ('in_coda', 'in_invio', 'stampata', 'fallita')),
    CONSTRAINT "stampe_copie_check" CHECK ("copie" BETWEEN 1 AND 100)
);
CREATE INDEX "stampe_stato_idx" ON "stampe"("stato", "id");
CREATE INDEX "stampe_stampante_idx" ON "stampe"("stampante_id", "id");
ALTER TABLE "stampe" ADD CONSTRAINT "stampe_stampante_id_fkey" FOREIGN KEY ("stampante_id") REFERENCES "stampanti"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
