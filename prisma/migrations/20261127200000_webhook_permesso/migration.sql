-- The `webhook` scope of API keys (docs/api.md section 3): granted only explicitly, never implied by scrittura.
ALTER TABLE "chiavi_api" DROP CONSTRAINT "chiavi_api_permessi_check",
    ADD CONSTRAINT "chiavi_api_permessi_check" CHECK ("permessi" <@ ARRAY['lettura', 'scrittura', 'webhook']::TEXT[]);

-- An endpoint's delivery rate (events delivered over the last minute, screen and GET /webhook/{id}) reads
-- its recent deliveries only, not every delivery it ever had.
CREATE INDEX "webhook_consegne_endpoint_id_concluso_il_idx" ON "webhook_consegne"("endpoint_id", "concluso_il")
    WHERE "stato" = 'consegnata';
