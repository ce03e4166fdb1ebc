-- GET /da-stoccare paged by a stable key in arrival order (docs/api.md sections 4 and 11): each row of location
-- stock remembers the movement that brought goods into it while it was empty. loadLocation clears the key
-- when it fills an empty row; the movement that filled it, appended in the same transaction, sets it here.
-- A topped-up row keeps its key, so a client paging on sees each row still waiting at most once, and the
-- key is a movement id: the movements' sync bound makes the pages complete as GET /movimenti's are.
ALTER TABLE "giacenze_ubicazioni" ADD COLUMN "arrivo_id" INTEGER;

-- One update per statement, for the rows this statement's incoming movements filled (already locked by
-- loadLocation, lock order 4, in this transaction): no lock of its own.
CREATE FUNCTION banchina_giacenze_ubicazioni_arrivo() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE giacenze_ubicazioni g SET arrivo_id = n.id
    FROM (SELECT articolo_id, ubicazione_id, lotto_id, min(id) AS id
            FROM nuovi WHERE ubicazione_id IS NOT NULL AND quantita > 0
           GROUP BY 1, 2, 3) n
   WHERE g.arrivo_id IS NULL AND g.articolo_id = n.articolo_id AND g.ubicazione_id = n.ubicazione_id
     AND g.lotto_id IS NOT DISTINCT FROM n.lotto_id;
  RETURN NULL;
END $$;

CREATE TRIGGER "movimenti_arrivo_ubicazione" AFTER INSERT ON "movimenti"
  REFERENCING NEW TABLE AS nuovi FOR EACH STATEMENT EXECUTE FUNCTION banchina_giacenze_ubicazioni_arrivo();

-- Back-fill: the first incoming movement since the row last filled (`caricata_il`, the same transaction's
-- now() as the movement's `registrato_il`), else the row's latest incoming movement.
UPDATE "giacenze_ubicazioni" g SET arrivo_id = coalesce(
    (SELECT min(m.id) FROM movimenti m
      WHERE m.articolo_id = g.articolo_id AND m.ubicazione_id = g.ubicazione_id AND m.lotto_id IS NOT DISTINCT FROM g.lotto_id
        AND m.quantita > 0 AND m.registrato_il >= g.caricata_il),
    (SELECT max(m.id) FROM movimenti m
      WHERE m.articolo_id = g.articolo_id AND m.ubicazione_id = g.ubicazione_id AND m.lotto_id IS NOT DISTINCT FROM g.lotto_id
        AND m.quantita > 0))
 WHERE g.quantita > 0;
