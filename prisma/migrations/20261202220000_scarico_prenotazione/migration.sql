-- An unload of POST /movimenti may name a reservation whose hold it consumes (docs/api.md section 14): the
-- movement points at it as the other references do, `riferimento_tipo` 'prenotazione' with the reservation's id.
-- No column of its own: a movement has one reference, and an unload naming a reservation has no other.
ALTER TABLE "movimenti" DROP CONSTRAINT "movimenti_riferimento_check";
ALTER TABLE "movimenti" ADD CONSTRAINT "movimenti_riferimento_check" CHECK (("riferimento_tipo" IS NULL) = ("riferimento_id" IS NULL)
    AND ("riferimento_tipo" IS NULL OR "riferimento_tipo" IN ('riga_ordine', 'documento_vendita', 'movimento', 'prenotazione')));
