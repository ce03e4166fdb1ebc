"use client";

import { useEffect, useRef, useState } from "react";
import "swagger-ui-dist/swagger-ui.css";

/**
 * Swagger UI from its prebuilt bundle (swagger-ui-dist). swagger-ui-react is not used: Turbopack
 * mis-bundles its OpenAPI 3.1 parser (operations never open, "refract is not a function";
 * vercel/next.js#86507). The bundle and its styles are served by this service and the document is
 * read from it, so the page needs no internet access.
 */
export function ApiReference({ url }: { url: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    let cancelled = false;
    void import("swagger-ui-dist/swagger-ui-bundle.js").then(({ default: SwaggerUIBundle }) => {
      if (cancelled || !container.current) return;
      SwaggerUIBundle({
        domNode: container.current,
        url,
        docExpansion: "list",
        defaultModelsExpandDepth: -1,
        // Never ask swagger.io to validate the document.
        validatorUrl: "none",
      });
      setLoaded(true);
    });
    return () => {
      cancelled = true;
    };
  }, [url]);

  // Swagger UI owns the container's children: React must not render any there.
  return (
    <>
      {!loaded && <p style={{ margin: "24px 20px" }}>Caricamento della documentazione…</p>}
      <div ref={container} />
    </>
  );
}
