# burst and burstd on Debian 12 (README.md, "Docker"). The build stage installs the build
# dependencies with the project's own scripts/setup and builds and runs the whole test suite with
# scripts/test; the runtime stage is slim: the two binaries, the example config, OpenSSH for the
# local cloud, and the shared libraries they link or load (libcurl, libssh and libcrypto are
# dlopened on first use, src/util/dynlib.h). tests/unit/dockerfile_test.cpp checks this file
# without Docker: the RUN lines, the COPY'd paths, and that every runtime package is one
# scripts/setup proves (or a library it depends on) and covers every library the binaries need.
FROM debian:12 AS build
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates sudo \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY scripts/setup scripts/setup
RUN scripts/setup
COPY . .
RUN scripts/test

FROM debian:12-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
      ca-certificates libcurl4 libssh-4 libssl3 libspdlog1.10 libfmt9 libcpp-httplib0.11 libpq5 \
      openssh-server openssh-client procps tzdata \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home --home-dir /home/burst --uid 10001 burst \
    && mkdir -p /var/lib/burst /etc/burst && chown burst:burst /var/lib/burst /etc/burst
COPY --from=build /src/build/burst /src/build/burstd /usr/local/bin/
COPY config/burstd.yaml /etc/burst/burstd.yaml
COPY examples /opt/burst/examples
ENV BURST_STATE_DIR=/var/lib/burst BURST_CONFIG_DIR=/etc/burst
USER burst
VOLUME ["/var/lib/burst"]
# Cloud API keys and pipeline secrets come from the environment (docker run --env-file).
CMD ["burstd"]
