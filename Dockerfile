# burst on Debian 12, built with the project's own setup script. The image contains the CLI and
# OpenSSH (for the local cloud); mount your pipeline and set BURST_STATE_DIR to a volume.
FROM debian:12-slim AS build
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates sudo \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY scripts/setup scripts/setup
RUN scripts/setup
COPY . .
RUN scripts/build -DBURST_TESTS=OFF

FROM debian:12-slim
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends \
      libcurl4 libssh-4 libspdlog1.10 libyaml-cpp0.7 libsqlite3-0 openssh-server python3 procps \
    && rm -rf /var/lib/apt/lists/* && mkdir -p /run/sshd
COPY --from=build /src/build/burst /usr/local/bin/burst
COPY examples /opt/burst/examples
ENV BURST_STATE_DIR=/var/lib/burst BURST_CONFIG_DIR=/etc/burst
ENTRYPOINT ["burst"]
CMD ["--help"]
