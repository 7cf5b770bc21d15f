#!/usr/bin/env python3
"""Publish a finished render: burst's example upload step.

Runs on a small CPU pod after the GPU pod is gone, reading the render from
the shared volume. Verifies render.wav against manifest.json, then copies
both into <to>/<UTC timestamp>/ and points <to>/latest at it. No network.

    python3 upload.py --from out --to "$BURST_VOLUME/published"
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
from datetime import datetime, timezone

FILES = ("render.wav", "manifest.json")


class UploadError(Exception):
    """A problem with the render being published: one line, exit status 1."""


def sha256_file(path):
    """Hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def load_manifest(src):
    """The render's manifest, after checking both files are present."""
    for name in FILES:
        if not os.path.isfile(os.path.join(src, name)):
            raise UploadError(f"{os.path.join(src, name)} not found (did the render step finish?)")
    try:
        with open(os.path.join(src, "manifest.json")) as f:
            manifest = json.load(f)
        return manifest, manifest["render"]["sha256"]
    except (ValueError, KeyError, TypeError) as e:
        raise UploadError(f"{os.path.join(src, 'manifest.json')} is not a render manifest: {e}") from None


def verify(path, expected):
    """Check a file's sha256 against the manifest; return the digest."""
    actual = sha256_file(path)
    if actual != expected:
        raise UploadError(f"{path} does not match manifest.json: sha256 {actual[:12]}..., "
                          f"expected {expected[:12]}... (corrupt or partial render; re-run it)")
    return actual


def publish(src, dest_root, digest):
    """Copy the files into a fresh <dest_root>/<timestamp>/ and update latest."""
    os.makedirs(dest_root, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name, n = stamp, 1
    while os.path.exists(os.path.join(dest_root, name)):
        n += 1
        name = f"{stamp}-{n}"
    staging = tempfile.mkdtemp(prefix=f".{name}.", dir=dest_root)
    dest = os.path.join(dest_root, name)
    try:
        for f in FILES:
            shutil.copyfile(os.path.join(src, f), os.path.join(staging, f))
        verify(os.path.join(staging, "render.wav"), digest)
        os.chmod(staging, 0o755)
        os.rename(staging, dest)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    write_latest(dest_root, name)
    return dest


def write_latest(dest_root, name):
    """Atomically write <dest_root>/latest holding the newest directory's name."""
    fd, tmp = tempfile.mkstemp(prefix=".latest.", dir=dest_root)
    with os.fdopen(fd, "w") as f:
        f.write(name + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, os.path.join(dest_root, "latest"))


def main(argv=None):
    p = argparse.ArgumentParser(description="Verify and publish a render (burst example upload step).")
    p.add_argument("--from", dest="src", required=True, help="render output dir (render.wav, manifest.json)")
    p.add_argument("--to", dest="dest", required=True, help="publish root; gets <timestamp>/ and latest")
    args = p.parse_args(argv)
    try:
        _, expected = load_manifest(args.src)
        digest = verify(os.path.join(args.src, "render.wav"), expected)
        dest = publish(args.src, args.dest, digest)
    except (UploadError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    size = os.path.getsize(os.path.join(dest, "render.wav")) / 2**20
    print(f"uploaded render.wav ({size:.1f} MiB, sha256 {digest[:12]}) to {dest}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
