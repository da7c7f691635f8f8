# Campfire TS as one container image (docs/operations.md, "Run it in a container"):
#   docker build --build-arg GIT_REVISION=$(git rev-parse HEAD) -t once-campfire-ts:app .
# The default command starts the server on $HTTP_PORT with its storage at /rails/storage
# (db/ and files/; the log goes to standard output, which the engine keeps). With WEB_CONCURRENCY above 1
# and no REDIS_URL it starts a redis-server beside the workers (server/container.ts).

# Both stages are Node 20 on Debian bookworm: the Node version the tests run on, and the Debian
# the tests take redis-server, ffmpeg and sqlite3 from.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The SQLite driver's native module comes prebuilt where its download can be reached; the
# toolchain (and Node's own headers, which the image has) builds it where it cannot.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# dist/ (the compiled server) and tmp/assets/ (the browser's files), then only what runs.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# redis-server: beside the workers when WEB_CONCURRENCY > 1 and REDIS_URL is unset. ffmpeg:
# video posters and sizes. sqlite3: the database by hand (docker exec … sqlite3). tini: PID 1,
# passing signals on and reaping orphans. chmod and the rest of coreutils are in the base image.
# ffmpeg's SDL output pulls in Mesa's OpenGL drivers and the LLVM they are compiled with (about
# 160 MB); nothing links them (they are only loaded to draw on a screen), so they are removed.
# (An image built on this one puts them back with its first `apt-get install --fix-broken`.)
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server ffmpeg sqlite3 ca-certificates tini \
 && dpkg --remove --force-depends libgl1-mesa-dri libllvm15 libz3-4 \
 && rm -rf /var/lib/apt/lists/* \
 && ffmpeg -hide_banner -version > /dev/null && ffprobe -hide_banner -version > /dev/null

WORKDIR /rails
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/tmp/assets tmp/assets
COPY --from=build /app/views views
COPY --from=build /app/migrations migrations
COPY --from=build /app/public public
# ONCE runs /hooks/pre-backup before it copies the storage folder and /hooks/post-restore after it
# puts one back; script/admin/ keeps upstream's admin commands at upstream's paths (docs/upgrading.md).
COPY --from=build /app/hooks /hooks
COPY --from=build /app/script script

# The server runs as the base image's `node` user (uid 1000, as upstream's image runs Rails), so
# mounted folders must be writable by uid 1000; `docker exec --user root` still works.
# dist/code-cache/ too: the first start writes V8's code cache of the server there, for the next.
RUN mkdir -p /rails/storage/db /rails/storage/files dist/code-cache \
 && chown -R node:node /rails/storage dist/code-cache
USER node

ENV NODE_ENV=production \
    RAILS_ENV=production \
    CAMPFIRE_STORAGE_PATH=/rails/storage \
    HTTP_PORT=3000
EXPOSE 3000

# Last, so a new revision rebuilds nothing above. The server answers them in its X-Version and
# X-Rev headers (APP_VERSION, else GIT_REVISION); the harness's own values override them.
ARG APP_VERSION=
ARG GIT_REVISION=
LABEL org.opencontainers.image.title="Campfire TS" \
      org.opencontainers.image.description="A TypeScript reimplementation of ONCE Campfire team chat" \
      org.opencontainers.image.version="${APP_VERSION}" \
      org.opencontainers.image.revision="${GIT_REVISION}"
ENV APP_VERSION=${APP_VERSION} \
    GIT_REVISION=${GIT_REVISION}

# The engine asks the server for GET /up from inside the container (server/healthcheck.ts): a
# server that stops answering shows as unhealthy, and an orchestrator can replace it. The start
# period covers a first boot's migrations of a large database.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/healthcheck.js"]

ENTRYPOINT ["/usr/bin/tini", "--"]
# As `npm start` runs dist/main.js (the same node flags), through the container's entry point.
CMD ["node", "--enable-source-maps", "--max-semi-space-size=8", "dist/container.js"]
