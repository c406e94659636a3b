import { resolve } from "node:path";

/**
 * The web app's build (`npm run build` makes it with Vite), served by the gateway when WEB_APP_DIR names it.
 * STUDY_WEB_APP_DIST points the test stacks at another build (`npx vite build --outDir …`), e.g. one per work tree.
 */
export const WEB_APP_DIST = process.env.STUDY_WEB_APP_DIST ?? resolve(__dirname, "../../../clients/web/dist");

/** Where the gateway serves it (clients/web/vite.config.ts `base`, without its trailing slash). */
export const WEB_APP_BASE = "/app";

/** The Vite dev server's origin (`npm run dev -w clients/web`), trusted by `npm start`'s gateway. */
export const WEB_APP_DEV_ORIGIN = "http://localhost:5173";
