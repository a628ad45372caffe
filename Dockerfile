# syntax=docker/dockerfile:1.7
#
# One image per Mi Club binary. Pick the binary with BIN:
#
#   docker build --build-arg BIN=miclub-auth -t registry.example/miclub-auth:$(git rev-parse --short HEAD) .
#
# BIN is one of miclub-gateway, miclub-auth, miclub-accounts, miclub-missions, miclub-content,
# miclub-registration (the [[bin]] names; each equals its package name). Only the gateway image
# carries the built web app (web/dist); the node stage is not built for the others.
#
# What the binaries read from disk at run time, and therefore what the image holds:
# - config/ (APP_CONFIG_DIR, default ./config under the working directory): production.toml;
# - the gateway: web/dist (gateway.web_dir, default ./web/dist);
# - auth in production: its signing keys as config/base.toml, mounted from a Secret (k8s/);
# - accounts and content: an accrual rules file only when *.accrual.rules_file is set (mounted);
# everything else is compiled in with include_str!: auth's common-passwords list, content's
# data/*.toml and terms text, the built-in accrual rules, the SQL migrations.
#
# No Docker engine runs on the machines this repository is developed on, so this file is
# checked by review and kept in step with the workspace by hand (see docs/operations.md).

ARG BIN=miclub-gateway
ARG RUST_IMAGE=rust:1.95-bookworm
ARG NODE_IMAGE=node:20-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

# ---- the web app (gateway only) --------------------------------------------------------------
FROM ${NODE_IMAGE} AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

# ---- the Rust binary -------------------------------------------------------------------------
FROM ${RUST_IMAGE} AS builder
ARG BIN
RUN case "$BIN" in \
      miclub-gateway|miclub-auth|miclub-accounts|miclub-missions|miclub-content|miclub-registration) ;; \
      *) echo "BIN must be one of miclub-gateway, miclub-auth, miclub-accounts, miclub-missions, miclub-content, miclub-registration (got '$BIN')" >&2; exit 1 ;; \
    esac
WORKDIR /src
COPY . .
# protoc comes from the protoc-bin-vendored crate: nothing to install. The target folder is a
# cache mount, so the binary is copied out in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry,sharing=locked \
    --mount=type=cache,target=/usr/local/cargo/git,sharing=locked \
    --mount=type=cache,target=/src/target,id=miclub-target,sharing=locked \
    cargo build --release --locked -p "$BIN" --bin "$BIN" \
 && install -D -m 0755 "target/release/$BIN" /out/server \
 && mkdir -p /src/web/dist

# Which web/dist goes into the image: the built app for the gateway, an empty folder otherwise
# (the alias for the other binaries is the builder stage, so BuildKit never runs the node stage
# for them). An unknown BIN fails here too.
FROM web AS webapp-miclub-gateway
FROM builder AS webapp-miclub-auth
FROM builder AS webapp-miclub-accounts
FROM builder AS webapp-miclub-missions
FROM builder AS webapp-miclub-content
FROM builder AS webapp-miclub-registration
FROM webapp-${BIN} AS webapp

# ---- the runtime -----------------------------------------------------------------------------
# distroless cc: glibc, libgcc, CA certificates and tzdata, no shell and no package manager.
# TLS is rustls throughout, so no OpenSSL is needed.
FROM ${RUNTIME_IMAGE} AS runtime
ARG BIN
LABEL org.opencontainers.image.title="${BIN}" \
      cl.miclub.binary="${BIN}"
WORKDIR /app
COPY --from=builder /src/config/ /app/config/
COPY --from=webapp /src/web/dist/ /app/web/dist/
COPY --from=builder /out/server /app/server
# The nonroot user of distroless (65532); Kubernetes sets the same ids and runAsNonRoot.
USER 65532:65532
ENV APP_ENVIRONMENT=production
# 8080 is the gateway's HTTP port; the services listen on 50051-50055 (gRPC).
EXPOSE 8080 50051 50052 50053 50054 50055
ENTRYPOINT ["/app/server"]
