# One image recipe for every process of the monorepo. Pick the workspace with the APP build arg:
#
#   docker build --build-arg APP=services/courses -t study/courses .
#   docker build --build-arg APP=gateway          -t study/gateway .
#
# The image runs `node $APP/dist/main.js`; the same image applies the database migrations with
# `node $APP/dist/migrate.js` (Kubernetes init container, compose one-shot service).
#
# Stages: `manifests` extracts the package manifests so that both install layers stay cached until a
# manifest or the lockfile changes; `build` compiles the whole repo once (shared by every APP);
# `prod-deps` installs production dependencies only; `assemble` picks the files APP needs; `runtime`
# is the final, non-root image.

ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS base
WORKDIR /app
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false

# --- package manifests only ----------------------------------------------------------------------
FROM base AS manifests
COPY . /src/
RUN cd /src \
 && cp package.json package-lock.json .npmrc /app/ \
 && find . -mindepth 2 -maxdepth 3 -name package.json -not -path '*/node_modules/*' \
      -exec cp --parents {} /app/ \;

# --- full build: buf + ts-proto, prisma generate, tsc -b ----------------------------------------
FROM base AS build
COPY --from=manifests /app/ ./
# npm install honours the lock; npm ci refuses it (see README: the lock cannot list every optional platform binary).
RUN npm install
COPY . .
RUN npm run build

# --- production dependencies ---------------------------------------------------------------------
# Equivalent of `npm prune --omit=dev` on the build tree, but cached independently of the sources.
# Install scripts are skipped: the Prisma client is generated into each service's sources at build
# time (engineType "client", no native engine), so no runtime dependency needs a postinstall step.
FROM base AS prod-deps
COPY --from=manifests /app/ ./
RUN npm install --omit=dev --ignore-scripts

# --- files the selected app needs at run time ----------------------------------------------------
# From every lib and from APP: the compiled code (dist/) and committed SQL migrations (prisma/ or
# migrations/). A workspace that needs other files at run time must keep them in one of these folders. The gateway
# also gets the web app's build (clients/web/dist), which it serves at /app/ (WEB_APP_DIR).
FROM base AS assemble
ARG APP
COPY --from=build /app/ /build/
RUN set -eu; \
    if [ -z "${APP:-}" ] || [ ! -f "/build/${APP}/package.json" ]; then \
      echo "Build arg APP must name a workspace of the repo, e.g. --build-arg APP=services/courses (got '${APP:-}')" >&2; \
      exit 1; \
    fi; \
    if [ ! -f "/build/${APP}/dist/main.js" ]; then \
      echo "${APP}/dist/main.js was not produced by npm run build" >&2; \
      exit 1; \
    fi; \
    cd /build; \
    for ws in libs/* "${APP}"; do \
      mkdir -p "/out/${ws}"; \
      for part in dist prisma migrations; do \
        if [ -e "${ws}/${part}" ]; then cp -a "${ws}/${part}" "/out/${ws}/"; fi; \
      done; \
    done; \
    if [ "${APP}" = gateway ]; then mkdir -p /out/clients/web && cp -a clients/web/dist /out/clients/web/; fi

# --- runtime --------------------------------------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG APP
WORKDIR /app
# The package managers are not needed to run the app; removing them shrinks the attack surface.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
           /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
 && groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin app
# The media pipeline (the worker, and GetVideoInfo) runs ffmpeg, pocketsphinx and yt-dlp: Debian packages.
RUN if [ "$APP" = "services/media" ]; then \
      apt-get update -qq \
      && apt-get install -y -qq --no-install-recommends ffmpeg pocketsphinx pocketsphinx-en-us yt-dlp \
      && rm -rf /var/lib/apt/lists/* \
      && mkdir -p /data/media && chown 10001:10001 /data/media; \
    fi
# Text extraction (the documents worker, and syllabi read by the service): poppler's PDF tools, tesseract OCR with
# its English data, antiword and catdoc (DOC, PPT, XLS), unrtf: Debian packages.
RUN if [ "$APP" = "services/documents" ]; then \
      apt-get update -qq \
      && apt-get install -y -qq --no-install-recommends \
           poppler-utils tesseract-ocr tesseract-ocr-eng antiword catdoc unrtf \
      && rm -rf /var/lib/apt/lists/* \
      && mkdir -p /data/documents /var/tmp/documents \
      && chown 10001:10001 /data/documents /var/tmp/documents; \
    fi
# Files stay owned by root and read-only for the app user (works with readOnlyRootFilesystem).
COPY --from=prod-deps /app/ ./
COPY --from=assemble /out/ ./
# A 32 MiB young generation: requests make much short-lived garbage (APP_NODE_OPTIONS in libs/testkit's stack).
ENV NODE_ENV=production \
    NODE_OPTIONS="--enable-source-maps --max-semi-space-size=32" \
    APP=${APP}
USER 10001:10001
# `exec` makes node PID 1 so that it receives SIGTERM directly (graceful shutdown in lifecycle.ts).
CMD ["/bin/sh", "-c", "exec node \"$APP/dist/main.js\""]
