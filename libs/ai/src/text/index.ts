/** The text utilities on their own: pure computation, importable by a domain (the package index loads the OpenAI SDK). */
export * from "./sentences";
export * from "./words";
export * from "./stop-words";
export * from "./term-frequency";
