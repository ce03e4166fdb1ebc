-- Webhook batches (docs/api.md section 10, "Throughput").
--
-- messaggio: the message a pending delivery was put in when its worker formed it, which is also the
--   message's webhook-id: the event's own id (evt_…) for a single-event body (eventi_per_richiesta 1),
--   msg_<first>_<last> (sequenze) for an { "eventi": [...] } body. NULL until formed. A formed message is
--   kept, so a retry resends exactly the same events with the same id, and a change of the endpoint's
--   settings applies only to messages not yet formed. A replay makes its deliveries unformed again.
ALTER TABLE "webhook_consegne" ADD COLUMN "messaggio" TEXT;
-- A retry reads its message's deliveries back by messaggio.
CREATE INDEX "webhook_consegne_messaggio_idx" ON "webhook_consegne"("endpoint_id", "messaggio")
    WHERE "messaggio" IS NOT NULL AND "stato" = 'in_attesa';
