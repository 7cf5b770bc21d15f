#!/usr/bin/env python3
"""Sync and pull benchmark: burst against rsync, scp and `ssh cat` on one loopback sshd.

One command: `python3 bench/sync_bench.py` (options: --runs, --scale, --build-dir, --keep, --cases).
It builds build-bench/burst_sync_bench, starts its own sshd on 127.0.0.1 with one cipher,
generates the issue-5 trees, runs every tool side by side, and prints a Markdown table of
medians with the burst/reference ratio. Peak RSS of the burst process is read from wait4().
Python 3 stdlib only; needs sshd, ssh, rsync and scp (scripts/setup installs them).
As root, every tool logs in as the user burst-bench (created once, shell /bin/sh), so that no
heavy ~/.bashrc is timed along with the transfer; see remote_user().

`--link shaped --rtt-ms 40 --rate-mbit 1000,200` (root only) runs the same cases over a link like a
laptop's to a cloud pod instead of loopback: the pod's sshd in one network namespace, every tool
in another, the two joined by a veth pair. The link is shaped with `tc netem` (delay and rate)
when the kernel has sch_netem; otherwise with `tbf` on both veth ends for the rate and
bench/link_delay_relay (a userspace relay in the client namespace) for the delay. See ShapedLink.
One table per rate; `--link all` prints the loopback table first. The namespaces are removed on
exit, on Ctrl-C and on SIGTERM.
"""
import argparse, os, random, shutil, signal, statistics, subprocess, sys, tempfile, time, platform, json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CIPHER = "aes128-gcm@openssh.com"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def busy_cpu_seconds():
    """CPU time every process on the machine has used so far (user + nice + system + irq +
    softirq in /proc/stat), in seconds; None where there is no /proc/stat."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:8]]
    except OSError:
        return None
    return (v[0] + v[1] + v[2] + v[5] + v[6]) / os.sysconf("SC_CLK_TCK")


last_cpu = None  # both ends' CPU seconds during the last timed() run (the machine's busy time)
last_client_cpu = None  # of that, the tool's own process and the children it waited for


def timed(cmd, env=None, stdout=subprocess.DEVNULL, net=None):
    """Runs cmd (in net's client namespace, if any); returns (seconds, peak RSS in KiB of that
    process, stdout text). `ip netns exec` execs the command in the same process, so wait4()
    still reports the tool's own peak (plus what ip and the forked Python held before exec).
    Sets last_cpu: the machine's busy CPU seconds over the run, which on an idle machine is the
    CPU both ends (the tool and the pod's sshd, shell and tar) used."""
    global last_cpu, last_client_cpu
    name = cmd[0]
    if net is not None:
        cmd = net.prefix + cmd
    cpu0 = busy_cpu_seconds()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE if stdout is None else stdout,
                         stderr=subprocess.PIPE)
    out = p.stdout.read().decode() if stdout is None else ""
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.monotonic() - t0
    cpu1 = busy_cpu_seconds()
    last_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
    last_client_cpu = ru.ru_utime + ru.ru_stime
    err = p.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{name} failed: {err.strip()}")
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


class Loopback:
    """Today's setup: every tool and the sshd on 127.0.0.1 of this namespace."""
    name = "loopback"
    how = "one sshd on 127.0.0.1, no shaping"
    prefix = []       # what runs a client command (nothing: here)
    pod_prefix = []   # what starts the pod's sshd
    listen = "127.0.0.1"

    def __init__(self):
        import socket
        s = socket.socket(); s.bind(("127.0.0.1", 0)); self.sshd_port = s.getsockname()[1]; s.close()
        self.addr, self.port = "127.0.0.1", self.sshd_port

    def setup(self):
        pass

    def start(self):
        pass

    def close(self):
        pass


NET_PREFIX = "burst-b"  # namespaces burst-bc<pid> (client) and burst-bp<pid> (pod)


def ip(*args, check=True):
    return subprocess.run(["ip", *args], check=check, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)


def remove_stale_namespaces():
    """Removes the namespaces of an earlier run that was killed (SIGKILL skips our cleanup)."""
    out = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        if name.startswith(NET_PREFIX) and name[len(NET_PREFIX) + 1:].isdigit():
            pid = int(name[len(NET_PREFIX) + 1:])
            if not os.path.exists(f"/proc/{pid}"):
                ip("netns", "del", name, check=False)


class ShapedLink:
    """Client and pod in two network namespaces joined by a veth pair, shaped to rtt_ms and
    rate_mbit in each direction.

    With sch_netem: `netem delay RTT/2 rate R` on both veth ends; the tools dial the pod's
    sshd directly (10.77.0.2). Without it: `tbf rate R` on both veth ends, and the tools dial
    link_delay_relay in the client namespace (127.0.0.1), which holds every chunk for RTT/2 in
    each direction before passing it over the veth to the sshd. The relay is one thread on the
    same cores as the tools: it costs CPU, so the ratio burst/reference over the same link is
    the result, not the absolute times. Its TCP segment to the sshd has no delay, so TCP's own
    congestion window is not tested against the RTT (SSH's channel windows and every
    request/answer round trip are); netem is the faithful one where the kernel has it.
    """

    def __init__(self, rtt_ms, rate_mbit, shaper, relay_bin):
        pid = os.getpid()
        self.cns, self.pns = f"{NET_PREFIX}c{pid}", f"{NET_PREFIX}p{pid}"
        self.cdev, self.pdev = f"bbc{pid}", f"bbp{pid}"
        self.rtt_ms, self.rate_mbit, self.shaper, self.relay_bin = rtt_ms, rate_mbit, shaper, relay_bin
        self.prefix = ["ip", "netns", "exec", self.cns]
        self.pod_prefix = ["ip", "netns", "exec", self.pns]
        self.listen, self.sshd_port = "10.77.0.2", 2222
        self.relay = None
        self.how = ""
        self.name = f"shaped: {rtt_ms:g} ms RTT, {rate_mbit:g} Mbit/s"

    def setup(self):
        """Makes the namespaces, the veth pair and the shaping (before the pod's sshd starts)."""
        rtt_ms, rate_mbit, shaper = self.rtt_ms, self.rate_mbit, self.shaper
        remove_stale_namespaces()
        ip("netns", "add", self.cns)
        ip("netns", "add", self.pns)
        ip("link", "add", self.cdev, "netns", self.cns, "type", "veth", "peer", "name", self.pdev,
           "netns", self.pns)
        for ns, dev, a in ((self.cns, self.cdev, "10.77.0.1/30"), (self.pns, self.pdev, "10.77.0.2/30")):
            ip("-n", ns, "addr", "add", a, "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
        one_way = rtt_ms / 2
        # netem's own queue must hold a bandwidth-delay product of packets.
        limit = max(1000, int(rate_mbit * 1e6 / 8 * rtt_ms / 1000 / 1500 * 4))
        use_netem = False
        if shaper in ("auto", "netem"):
            r = [subprocess.run(["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "netem", "delay",
                                 f"{one_way}ms", "rate", f"{rate_mbit}mbit", "limit", str(limit)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                 for ns, dev in ((self.cns, self.cdev), (self.pns, self.pdev))]
            use_netem = all(x.returncode == 0 for x in r)
            if not use_netem:
                err = next(x.stderr.strip() for x in r if x.returncode != 0)
                if shaper == "netem":
                    raise RuntimeError(f"tc netem: {err}")
                print(f"tc netem unavailable ({err}); shaping with tbf + link_delay_relay",
                      file=sys.stderr)
                for ns, dev in ((self.cns, self.cdev), (self.pns, self.pdev)):
                    subprocess.run(["tc", "-n", ns, "qdisc", "del", "dev", dev, "root"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if use_netem:
            self.how = f"tc netem delay {one_way:g} ms rate {rate_mbit:g} Mbit/s on both veth ends"
            self.addr, self.port = self.listen, self.sshd_port
        else:
            # tbf's bucket must hold at least one timer tick of data at the rate (and a GSO packet).
            burst = max(256 * 1024, int(rate_mbit * 1e6 / 8 / 250))
            for ns, dev in ((self.cns, self.cdev), (self.pns, self.pdev)):
                subprocess.run(["tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate",
                                f"{rate_mbit}mbit", "burst", str(burst), "latency", "50ms"],
                               check=True)
            self.queue = int(2 * rate_mbit * 1e6 / 8 * one_way / 1000) + (4 << 20)
            self.how = (f"tbf rate {rate_mbit:g} Mbit/s on both veth ends, link_delay_relay "
                        f"{one_way:g} ms each way (queue {self.queue >> 20} MiB)")
            self.addr = "127.0.0.1"

    def start(self):
        """After the pod's sshd listens: the relay, if this link uses one."""
        if self.how.startswith("tc netem"):
            return
        self.relay = subprocess.Popen(self.prefix + [
            self.relay_bin, "127.0.0.1", "0", self.listen, str(self.sshd_port),
            str(int(self.rtt_ms / 2)), str(self.queue)], stdout=subprocess.PIPE, text=True)
        line = self.relay.stdout.readline().split()
        if len(line) != 2 or line[0] != "port":
            raise RuntimeError("link_delay_relay did not start")
        self.port = int(line[1])

    def close(self):
        if self.relay is not None and self.relay.poll() is None:
            self.relay.terminate()
            try:
                self.relay.wait(5)
            except subprocess.TimeoutExpired:
                self.relay.kill()
        # Deleting a namespace whose last process is gone removes its end of the veth pair.
        ip("netns", "del", self.cns, check=False)
        ip("netns", "del", self.pns, check=False)


class Sshd:
    def __init__(self, d, net):
        self.d = d
        self.net = net
        self.key = os.path.join(d, "id_ed25519")
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", self.key])
        sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(d, "host")])
        shutil.copy(self.key + ".pub", os.path.join(d, "authorized_keys"))
        self.port = net.sshd_port
        sftp = next(p for p in ["/usr/lib/openssh/sftp-server", "/usr/libexec/sftp-server",
                                "/usr/libexec/openssh/sftp-server"] if os.path.exists(p))
        with open(os.path.join(d, "sshd_config"), "w") as f:
            f.write(f"""ListenAddress {net.listen}
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
        sh(net.pod_prefix + ["/usr/sbin/sshd", "-f", os.path.join(d, "sshd_config")])
        net.start()
        self.port = net.port  # what the tools dial: the sshd, or the relay in front of it
        self.host = net.addr
        self.ssh = ["ssh", "-p", str(self.port), "-i", self.key, "-c", CIPHER, "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-o", "LogLevel=ERROR"]
        for _ in range(50):
            if subprocess.run(net.prefix + self.ssh + [f"{self.user}@{self.host}", "true"]).returncode == 0:
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


def run_cases(a, tool, net):
    """Every case over one link; prints its table."""
    load_start = os.getloadavg()[0]
    t_start = time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())
    work = tempfile.mkdtemp(prefix="burst-bench-")
    sshd = None
    env = dict(os.environ, BURST_SSH_CIPHERS=CIPHER)
    rows = []
    notes = []  # lines printed under the table

    def med(xs):
        return statistics.median(xs)

    def row(name, burst_s, ref_name, ref_s, target):
        rows.append((name, burst_s, ref_name, ref_s, burst_s / ref_s, target))

    try:
        net.setup()
        sshd = Sshd(work, net)
        addr = sshd.host
        host = f"{sshd.user}@{addr}"
        # rsync runs this ssh itself, inside the client namespace it was started in.
        ssh_e = " ".join(sshd.ssh)
        small, large = int(5000 * a.scale), 20
        cases = set(a.cases.split(","))
        src = os.path.join(work, "src"); os.makedirs(src)
        if "sync" in cases:
            make_tree(src, small, large, a.scale)
            vol = os.path.join(work, "vol"); os.makedirs(vol)
            give_to(sshd.user, vol)
            b_dst, r_dst = os.path.join(vol, "burst-code"), os.path.join(vol, "rsync-code")
            rsync = ["rsync", "-a", "-e", ssh_e, src + "/", f"{host}:{r_dst}/"]
            burst_sync = [tool, "sync", addr, str(sshd.port), sshd.user, sshd.key, src, b_dst, vol]
            init_b, init_r, none_b, none_r, one_b, one_r = [], [], [], [], [], []
            cpu_b, cpu_r, ccpu_b, ccpu_r = [], [], [], []  # the initial sync's CPU: both ends, client
            changed = os.path.join(src, "pkg00", "mod0", "file_00000.py")
            for i in range(a.runs):
                for p in (b_dst, r_dst, os.path.join(vol, ".burst")):
                    shutil.rmtree(p, ignore_errors=True)
                # `sync` before every timed run: neither tool's 0.8 GB of dirty pages is written back
                # during the other's time.
                sh(["sync"]); init_b.append(timed(burst_sync, env, net=net)[0]); cpu_b.append(last_cpu); ccpu_b.append(last_client_cpu)
                sh(["sync"]); init_r.append(timed(rsync, net=net)[0]); cpu_r.append(last_cpu); ccpu_r.append(last_client_cpu)
                sh(["sync"]); none_b.append(timed(burst_sync, env, net=net)[0])
                none_r.append(timed(rsync, net=net)[0])
                with open(changed, "ab") as f:
                    f.write(b"# changed\n")
                one_b.append(timed(burst_sync, env, net=net)[0]); one_r.append(timed(rsync, net=net)[0])
            row(f"initial sync ({small} small + {large} large files)", med(init_b), "rsync -a", med(init_r), "<= 1.0")
            row("no-change re-sync", med(none_b), "rsync -a", med(none_r), "<= 0.5")
            if None not in cpu_b + cpu_r:
                notes.append(f"initial sync, CPU of both ends (the machine's busy time, /proc/stat; "
                             f"medians): burst {med(cpu_b):.2f} s in {med(init_b):.2f} s, rsync -a "
                             f"{med(cpu_r):.2f} s in {med(init_r):.2f} s; of that, the client "
                             f"(burst's process; rsync with its ssh): burst {med(ccpu_b):.2f} s, "
                             f"rsync -a {med(ccpu_r):.2f} s")
            row("one changed file", med(one_b), "rsync -a", med(one_r), "<= 1.0")
            shutil.rmtree(src); shutil.rmtree(b_dst); shutil.rmtree(r_dst)

        remote = os.path.join(work, "pod"); os.makedirs(remote)
        home = os.path.join(work, "home"); os.makedirs(home)
        rss = []
        size_gib = (2 << 30) * a.scale / (1 << 30)
        # Pull of one 2 GiB artefact.
        if "pull" in cases:
            big = os.path.join(remote, "render.bin")
            write_random(big, int((2 << 30) * a.scale))
            give_to(sshd.user, remote)
            pb, ps, pc = [], [], []
            for i in range(a.runs):
                for f in os.listdir(home):
                    os.remove(os.path.join(home, f))
                sh(["sync"])
                dt, maxrss, _ = timed([tool, "pull", addr, str(sshd.port), sshd.user, sshd.key,
                                       "render.bin", home, remote], env, net=net)
                pb.append(dt); rss.append(maxrss)
                os.remove(os.path.join(home, "render.bin"))
                sh(["sync"])
                ps.append(timed(["scp", "-q", "-P", str(sshd.port), "-i", sshd.key, "-c", CIPHER,
                                 "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                                 f"{host}:{big}", os.path.join(home, "scp.bin")], net=net)[0])
                os.remove(os.path.join(home, "scp.bin"))
                sh(["sync"])
                with open(os.path.join(home, "cat.bin"), "wb") as out:
                    pc.append(timed(sshd.ssh + [host, f"cat {big}"], stdout=out, net=net)[0])
                os.remove(os.path.join(home, "cat.bin"))
            row(f"pull one {size_gib:.1f} GiB file", med(pb), "ssh cat (ceiling)", med(pc), "<= 1.11 (90% of ceiling)")
            row(f"pull one {size_gib:.1f} GiB file", med(pb), "scp", med(ps), "-")
            os.remove(big)

        # Pull of 500 x 1 MiB.
        if "many" in cases:
            many = os.path.join(remote, "clips"); os.makedirs(many)
            n_many = max(1, int(500 * a.scale))
            for i in range(n_many):
                write_random(os.path.join(many, f"clip_{i:03d}.wav"), 1 << 20)
            give_to(sshd.user, many)
            mb, ms = [], []
            for i in range(a.runs):
                shutil.rmtree(home); os.makedirs(home)
                sh(["sync"])
                mb.append(timed([tool, "pull", addr, str(sshd.port), sshd.user, sshd.key,
                                 "clips/*", os.path.join(home, "b"), remote], env, net=net)[0])
                sh(["sync"])
                ms.append(timed(["scp", "-q", "-r", "-P", str(sshd.port), "-i", sshd.key, "-c", CIPHER,
                                 "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                                 f"{host}:{many}", os.path.join(home, "s")], net=net)[0])
            row(f"pull {n_many} x 1 MiB", med(mb), "scp -r", med(ms), "<= 0.7")

        print(f"\n### {net.name}\n\n{net.how}\n")
        print(f"From {t_start} to {time.strftime('%H:%M:%S UTC', time.gmtime())}, {platform.node()}, "
              f"{os.cpu_count()} cores, load average {load_start:.2f} at the start and "
              f"{os.getloadavg()[0]:.2f} at the end, cipher {CIPHER}, "
              f"medians of {a.runs} runs, scale {a.scale}, remote user {sshd.user} "
              f"({'lean /bin/sh' if sshd.lean else 'its own login shell, start-up included'})\n")
        print("| case | burst s | reference | reference s | burst/ref | target |")
        print("|---|---|---|---|---|---|")
        for name, b, rn, r, ratio, t in rows:
            print(f"| {name} | {b:.2f} | {rn} | {r:.2f} | {ratio:.2f} | {t} |")
        if rss:
            print(f"\npeak RSS of burst during the {size_gib:.1f} GiB pull: {max(rss) / 1024:.1f} MiB "
                  f"(target < 64 MiB)")
        for line in notes:
            print(f"\n{line}")
    finally:
        if sshd is not None:
            sshd.stop()
        net.close()
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def on_sigterm(signum, frame):
    raise KeyboardInterrupt  # runs every finally: the sshd, the relay and the namespaces go


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="shrink every data set (0.1 = quick try)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--link", choices=["loopback", "shaped", "all"], default="loopback",
                    help="all: the loopback table, then one shaped-link table per rate")
    ap.add_argument("--rtt-ms", type=float, default=40, help="shaped link: round-trip time")
    ap.add_argument("--rate-mbit", default="1000,200",
                    help="shaped link: rate in Mbit/s each way; a comma list runs one table each")
    ap.add_argument("--shaper", choices=["auto", "netem", "relay"], default="auto",
                    help="shaped link: netem if the kernel has it (auto), or tbf + link_delay_relay")
    ap.add_argument("--cases", default="sync,pull,many",
                    help="comma list of what to run: sync (initial, no-change, one changed), "
                         "pull (one 2 GiB file), many (500 x 1 MiB); default all three")
    a = ap.parse_args()
    if not set(a.cases.split(",")) <= {"sync", "pull", "many"}:
        ap.error("--cases: a comma list of sync, pull, many")
    signal.signal(signal.SIGTERM, on_sigterm)
    shaped = a.link in ("shaped", "all")
    targets = ["burst_sync_bench"] + (["link_delay_relay"] if shaped else [])
    if shaped and os.geteuid() != 0:
        sys.exit(f"--link {a.link} needs root (network namespaces, tc)")
    if not os.path.exists(os.path.join(a.build_dir, "CMakeCache.txt")):
        sh(["cmake", "-S", ROOT, "-B", a.build_dir, "-DBURST_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release"],
           stdout=subprocess.DEVNULL)
    sh(["cmake", "--build", a.build_dir, "--target", *targets, "-j2"], stdout=subprocess.DEVNULL)
    tool = os.path.join(a.build_dir, "burst_sync_bench")
    links = [Loopback()] if a.link in ("loopback", "all") else []
    if shaped:
        relay = os.path.join(a.build_dir, "link_delay_relay")
        links += [ShapedLink(a.rtt_ms, float(r), a.shaper, relay) for r in a.rate_mbit.split(",")]
    for net in links:
        run_cases(a, tool, net)


if __name__ == "__main__":
    main()
