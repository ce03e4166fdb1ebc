/** The first page of the articles' and suppliers' look-ups (active ones, no search): the screens' and the pages' prefetch. */
export const LOOKUP_PAGE = "50";
export const FIRST_LOOKUP = { attivo: "true", limite: LOOKUP_PAGE, dopo: "0" } as const;
