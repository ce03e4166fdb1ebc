-- Webhook endpoints managed by REST, and their throughput settings (docs/api.md section 10).
--
-- chiave_id: the API key that created the endpoint by REST (NULL: the screen or the command line). Such a
--   key sees and changes only its own endpoints; the screen shows them all.
-- disattivato_il: when the endpoint was last disabled (NULL while active). An endpoint disabled for more
--   than 7 days stops collecting deliveries; enabled again, it resumes from then, and the skipped range of
--   sequenza is kept (salto_da, salto_a) so a replay can fill it.
-- eliminato_il: DELETE /webhook/{id} keeps the row (deliveries and attempts refer to it) but hides it and
--   drops its pending deliveries.
-- eventi_per_richiesta, consegna: events per request (1-100) and ordered or parallel delivery.
ALTER TABLE "webhook_endpoint"
    ADD COLUMN "chiave_id" INTEGER REFERENCES "chiavi_api"("id") ON DELETE RESTRICT,
    ADD COLUMN "disattivato_il" TIMESTAMPTZ(3),
    ADD COLUMN "eliminato_il" TIMESTAMPTZ(3),
    ADD COLUMN "salto_da" INTEGER,
    ADD COLUMN "salto_a" INTEGER,
    ADD COLUMN "eventi_per_richiesta" INTEGER NOT NULL DEFAULT 1,
    ADD COLUMN "consegna" TEXT NOT NULL DEFAULT 'ordinata',
    ADD CONSTRAINT "webhook_endpoint_eventi_per_richiesta_check" CHECK ("eventi_per_richiesta" BETWEEN 1 AND 100),
    ADD CONSTRAINT "webhook_endpoint_consegna_check" CHECK ("consegna" IN ('ordinata', 'parallela'));
CREATE INDEX "webhook_endpoint_chiave_id_idx" ON "webhook_endpoint"("chiave_id");
