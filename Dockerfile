# The bridge as a container: a static binary (the SQLite driver, modernc.org/sqlite,
# is pure Go, so CGO_ENABLED=0) on distroless, running as a non-root user.
#
#   docker build -t a2a-mcp-bridge --build-arg VERSION=$(git describe --tags --always) .
#   docker run -p 8080:8080 -v $PWD/bridge.yaml:/etc/bridge/bridge.yaml:ro a2a-mcp-bridge
#
# The build command is `make static`, which `make test` also runs (and checks that
# the binary is static), so CI builds exactly this binary without a Docker daemon.
# In a container the file must listen on 0.0.0.0:8080 with authentication
# configured (see README, "Install").

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN make static VERSION=$VERSION && mkdir -p /out/var/lib/bridge

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /src/bin/bridge-static /usr/local/bin/bridge
# The default store, sqlite:./bridge.db, lands in the working directory.
COPY --from=build --chown=65532:65532 /out/var/lib/bridge /var/lib/bridge
WORKDIR /var/lib/bridge
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/bridge"]
CMD ["serve", "--config", "/etc/bridge/bridge.yaml"]
