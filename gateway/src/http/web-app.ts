import { join } from "node:path";
import express, { type Router } from "express";

/** Where the gateway serves the web app (its Vite `base`). */
export const WEB_APP_PATH = "/app";

/**
 * The web app's built files under /app/: hashed assets cached for a year, and index.html (never cached, so a new
 * build is picked up) for every other path, since the app routes in the browser (/app/notes/…, /app/reset-password).
 */
export function webAppRoutes(dir: string): Router {
  const router = express.Router();
  const index = join(dir, "index.html");
  router.use("/assets", express.static(join(dir, "assets"), { immutable: true, maxAge: "365d", index: false, fallthrough: false }));
  router.use(express.static(dir, { index: false, maxAge: "1h" }));
  router.get("/{*path}", (_req, res) => {
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  });
  return router;
}
