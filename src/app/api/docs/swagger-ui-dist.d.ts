// swagger-ui-dist ships no types; only the options this service passes are declared.
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  interface SwaggerUIOptions {
    domNode: HTMLElement;
    url: string;
    docExpansion?: "list" | "full" | "none";
    defaultModelsExpandDepth?: number;
    validatorUrl?: string | null;
  }
  const SwaggerUIBundle: (options: SwaggerUIOptions) => unknown;
  export default SwaggerUIBundle;
}
