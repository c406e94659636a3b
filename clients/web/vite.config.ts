import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

/** The API under `npm start` (the dev server proxies to it, so the app keeps one origin and its cookie session). */
const api = process.env.STUDY_API_URL ?? "http://localhost:3000";

export default defineConfig({
  // The gateway serves the build at /app/ (gateway/src/http/web-app.ts).
  base: "/app/",
  plugins: [react()],
  resolve: {
    // The SDK's source: the app is built without waiting for the SDK's own compilation.
    alias: { "@study/sdk": fileURLToPath(new URL("../sdk/src/index.ts", import.meta.url)) },
  },
  server: {
    port: 5173,
    strictPort: true,
    proxy: { "/api": { target: api }, "/health": { target: api } },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Figures of the first page's JavaScript: docs/web-app.md and bench/web-app.
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
  test: {
    environment: "jsdom",
    // One jsdom for every file instead of one per file: 24 → 6 CPU-s for the suite. Each test renders into a
    // cleaned document (src/test-setup.ts); no test keeps module state.
    isolate: false,
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["./src/test-setup.ts"],
    restoreMocks: true,
  },
});
