#!/usr/bin/env python3
"""Sync and pull benchmark: burst against rsync, scp and `ssh cat` on one loopback sshd.

One command: `python3 bench/sync_bench.py` (options: --runs, --scale, --build-dir, --keep).
It builds build-bench/burst_sync_bench, starts its own sshd on 127.0.0.1 with one cipher,
generates the issue-5 trees, runs every tool side by side, and prints a Markdown table of
medians with the burst/reference ratio. Peak RSS of the burst process is read from wait4().
Python 3 stdlib only; needs sshd, ssh, rsync and scp (scripts/setup installs them).
As root, every tool logs in as the user burst-bench (created once, shell /bin/sh), so that no
heavy ~/.bashrc is timed along with the transfer; see remote_user().
"""
import argparse, os, random, shutil, statistics, subprocess, sys, tempfile, time, platform, json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CIPHER = "aes128-gcm@openssh.com"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def timed(cmd, env=None, stdout=subprocess.DEVNULL):
    """Runs cmd; returns (seconds, peak RSS in KiB of that process, stdout text)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE if stdout is None else stdout,
                         stderr=subprocess.PIPE)
    out = p.stdout.read().decode() if stdout is None else ""
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.monotonic() - t0
    err = p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[0]} failed: {err.strip()}")
    return dt, ru.ru_maxrss, out


BENCH_USER = "burst-bench"


def remote_user():
    """The remote user every tool logs in as: (name, whether its shell starts lean).

    sshd runs every command (and the sftp subsystem) through the user's login shell, and Debian's
    bash sources ~/.bashrc under sshd. A heavy ~/.bashrc (pyenv, conda) then costs 0.5-3 s per
    remote command and swamps what we want to measure. As root, the benchmark logs every tool in
    as a dedicated user whose shell is /bin/sh (dash: reads no rc file for `sh -c`), created
    once. Otherwise it uses the current user and says that its shell start-up is included.
    """
    if os.geteuid() == 0:
        if subprocess.run(["id", BENCH_USER], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            sh(["useradd", "-m", "-s", "/bin/sh", BENCH_USER])
        # useradd leaves the password "!" (locked), and sshd without PAM refuses a locked account
        # even for key logins; "*" means no password, not locked.
        sh(["usermod", "-p", "*", BENCH_USER])
        return BENCH_USER, True
    me = os.environ.get("USER") or subprocess.check_output(["id", "-un"]).decode().strip()
    print(f"WARNING: not root, so every tool logs in as {me}: each remote command start includes "
          f"{me}'s login shell start-up ({os.environ.get('SHELL', '?')} and its rc files).",
          file=sys.stderr)
    return me, False


def give_to(user, *paths):
    """Makes the remote side's directories the remote user's (a no-op when that is us)."""
    if os.geteuid() == 0 and user != "root":
        for p in paths:
            sh(["chown", "-R", f"{user}:", p])


class Sshd:
    def __init__(self, d):
        self.d = d
        self.key = os.path.join(d, "id_ed25519")
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.key])
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, "host")])
        shutil.copy(self.key + ".pub", os.path.join(d, "authorized_keys"))
        import socket
        s = socket.socket(); s.bind(("127.0.0.1", 0)); self.port = s.getsockname()[1]; s.close()
        sftp = next(p for p in ["/usr/lib/openssh/sftp-server", "/usr/libexec/sftp-server",
                                "/usr/libexec/openssh/sftp-server"] if os.path.exists(p))
        with open(os.path.join(d, "sshd_config"), "w") as f:
            f.write(f"""ListenAddress 127.0.0.1
Port {self.port}
HostKey {d}/host
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
PermitRootLogin yes
Ciphers {CIPHER}
Subsystem sftp {sftp}
""")
        os.makedirs("/run/sshd", exist_ok=True)
        self.user, self.lean = remote_user()
        # sshd reads authorized_keys as the remote user: it must be able to reach the file.
        os.chmod(d, 0o755)
        os.chmod(os.path.join(d, "authorized_keys"), 0o644)
        sh(["/usr/sbin/sshd", "-f", os.path.join(d, "sshd_config")])
        self.ssh = ["ssh", "-p", str(self.port), "-i", self.key, "-c", CIPHER, "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-o", "LogLevel=ERROR"]
        for _ in range(50):
            if subprocess.run(self.ssh + [f"{self.user}@127.0.0.1", "true"]).returncode == 0:
                break
            time.sleep(0.1)

    def stop(self):
        with open(os.path.join(self.d, "sshd.pid")) as f:
            os.kill(int(f.read()), 15)


def make_tree(root, small, large, scale):
    rnd = random.Random(5)
    for i in range(small):
        d = os.path.join(root, f"pkg{i % 50:02d}", f"mod{i % 7}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"file_{i:05d}.py"), "wb") as f:
            f.write(rnd.randbytes(rnd.randint(1, 64) * 1024))
    os.makedirs(os.path.join(root, "data"), exist_ok=True)
    for i in range(large):
        with open(os.path.join(root, "data", f"blob_{i:02d}.bin"), "wb") as f:
            n = int(rnd.randint(10, 50) * (1 << 20) * scale)
            while n > 0:
                k = min(n, 8 << 20); f.write(os.urandom(k)); n -= k


def write_random(path, size):
    with open(path, "wb") as f:
        while size > 0:
            k = min(size, 16 << 20); f.write(os.urandom(k)); size -= k


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="shrink every data set (0.1 = quick try)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    load_start = os.getloadavg()[0]
    if not os.path.exists(os.path.join(a.build_dir, "CMakeCache.txt")):
        sh(["cmake", "-S", ROOT, "-B", a.build_dir, "-DBURST_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release"],
           stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", a.build_dir, "--target", "burst_sync_bench", "-j2"], stdout=subprocess.DEVNULL)
    tool = os.path.join(a.build_dir, "burst_sync_bench")
    work = tempfile.mkdtemp(prefix="burst-bench-")
    sshd = Sshd(work)
    env = dict(os.environ, BURST_SSH_CIPHERS=CIPHER)
    host = f"{sshd.user}@127.0.0.1"
    ssh_e = " ".join(sshd.ssh)
    base = [tool, None, "127.0.0.1", str(sshd.port), sshd.user, sshd.key]
    rows = []

    def med(xs):
        return statistics.median(xs)

    def row(name, burst_s, ref_name, ref_s, target):
        rows.append((name, burst_s, ref_name, ref_s, burst_s / ref_s, target))

    try:
        small, large = int(5000 * a.scale), 20
        src = os.path.join(work, "src"); os.makedirs(src)
        make_tree(src, small, large, a.scale)
        vol = os.path.join(work, "vol"); os.makedirs(vol)
        give_to(sshd.user, vol)
        b_dst, r_dst = os.path.join(vol, "burst-code"), os.path.join(vol, "rsync-code")
        rsync = ["rsync", "-a", "-e", ssh_e, src + "/", f"{host}:{r_dst}/"]
        burst_sync = [tool, "sync", "127.0.0.1", str(sshd.port), sshd.user, sshd.key, src, b_dst, vol]
        init_b, init_r, none_b, none_r, one_b, one_r = [], [], [], [], [], []
        changed = os.path.join(src, "pkg00", "mod0", "file_00000.py")
        for i in range(a.runs):
            for p in (b_dst, r_dst, os.path.join(vol, ".burst")):
                shutil.rmtree(p, ignore_errors=True)
            # `sync` before every timed run: neither tool's 0.8 GB of dirty pages is written back
            # during the other's time.
            sh(["sync"]); init_b.append(timed(burst_sync, env)[0])
            sh(["sync"]); init_r.append(timed(rsync)[0])
            sh(["sync"]); none_b.append(timed(burst_sync, env)[0])
            none_r.append(timed(rsync)[0])
            with open(changed, "ab") as f:
                f.write(b"# changed\n")
            one_b.append(timed(burst_sync, env)[0]); one_r.append(timed(rsync)[0])
        row(f"initial sync ({small} small + {large} large files)", med(init_b), "rsync -a", med(init_r), "<= 1.0")
        row("no-change re-sync", med(none_b), "rsync -a", med(none_r), "<= 0.5")
        row("one changed file", med(one_b), "rsync -a", med(one_r), "<= 1.0")
        shutil.rmtree(src); shutil.rmtree(b_dst); shutil.rmtree(r_dst)

        # Pull of one 2 GiB artefact.
        remote = os.path.join(work, "pod"); os.makedirs(remote)
        big = os.path.join(remote, "render.bin")
        write_random(big, int((2 << 30) * a.scale))
        give_to(sshd.user, remote)
        home = os.path.join(work, "home"); os.makedirs(home)
        pb, ps, pc, rss = [], [], [], []
        for i in range(a.runs):
            for f in os.listdir(home):
                os.remove(os.path.join(home, f))
            sh(["sync"])
            dt, maxrss, _ = timed([tool, "pull", "127.0.0.1", str(sshd.port), sshd.user, sshd.key,
                                   "render.bin", home, remote], env)
            pb.append(dt); rss.append(maxrss)
            os.remove(os.path.join(home, "render.bin"))
            sh(["sync"])
            ps.append(timed(["scp", "-q", "-P", str(sshd.port), "-i", sshd.key, "-c", CIPHER,
                             "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                             f"{host}:{big}", os.path.join(home, "scp.bin")])[0])
            os.remove(os.path.join(home, "scp.bin"))
            sh(["sync"])
            with open(os.path.join(home, "cat.bin"), "wb") as out:
                pc.append(timed(sshd.ssh + [host, f"cat {big}"], stdout=out)[0])
            os.remove(os.path.join(home, "cat.bin"))
        size_gib = (2 << 30) * a.scale / (1 << 30)
        row(f"pull one {size_gib:.1f} GiB file", med(pb), "ssh cat (ceiling)", med(pc), "<= 1.11 (90% of ceiling)")
        row(f"pull one {size_gib:.1f} GiB file", med(pb), "scp", med(ps), "-")
        os.remove(big)

        # Pull of 500 x 1 MiB.
        many = os.path.join(remote, "clips"); os.makedirs(many)
        n_many = max(1, int(500 * a.scale))
        for i in range(n_many):
            write_random(os.path.join(many, f"clip_{i:03d}.wav"), 1 << 20)
        give_to(sshd.user, many)
        mb, ms = [], []
        for i in range(a.runs):
            shutil.rmtree(home); os.makedirs(home)
            sh(["sync"])
            mb.append(timed([tool, "pull", "127.0.0.1", str(sshd.port), sshd.user, sshd.key,
                             "clips/*", os.path.join(home, "b"), remote], env)[0])
            sh(["sync"])
            ms.append(timed(["scp", "-q", "-r", "-P", str(sshd.port), "-i", sshd.key, "-c", CIPHER,
                             "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                             f"{host}:{many}", os.path.join(home, "s")])[0])
        row(f"pull {n_many} x 1 MiB", med(mb), "scp -r", med(ms), "<= 0.7")

        print(f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, "
              f"{os.cpu_count()} cores, load average {load_start:.2f} at the start and "
              f"{os.getloadavg()[0]:.2f} at the end, cipher {CIPHER}, "
              f"medians of {a.runs} runs, scale {a.scale}, remote user {sshd.user} "
              f"({'lean /bin/sh' if sshd.lean else 'its own login shell, start-up included'})\n")
        print("| case | burst s | reference | reference s | burst/ref | target |")
        print("|---|---|---|---|---|---|")
        for name, b, rn, r, ratio, t in rows:
            print(f"| {name} | {b:.2f} | {rn} | {r:.2f} | {ratio:.2f} | {t} |")
        print(f"\npeak RSS of burst during the {size_gib:.1f} GiB pull: {max(rss) / 1024:.1f} MiB "
              f"(target < 64 MiB)")
    finally:
        sshd.stop()
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
