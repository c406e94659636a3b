import { join } from "node:path";
import { AppError } from "@study/platform";
import compression from "compression";
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
  // The app's scripts and styles shrink to about a third with gzip; no proxy in front is assumed to compress them.
  router.use(compression());
  router.use("/assets", express.static(join(dir, "assets"), { immutable: true, maxAge: "365d", index: false }), (req, _res, next) => {
    // An asset of another build (a page open across a deployment): 404 in the envelope, not the page in its place.
    next(new AppError("not_found", "NOT_FOUND", `No asset ${req.path} in this build of the web app`));
  });
  router.use(express.static(dir, { index: false, maxAge: "1h" }));
  router.get("/{*path}", (_req, res) => {
    res.setHeader("Cache-Control", "no-cache");
    res.sendFile(index);
  });
  return router;
}
