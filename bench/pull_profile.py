#!/usr/bin/env python3
"""Where a many-file pull's cost goes, in counts that do not depend on the machine's load.

    sudo python3 bench/pull_profile.py --counts 50,150,500 --size-kib 1024 [--callgrind]

For each N it puts N files of SIZE on a loopback sshd (the same one bench/sync_bench.py
starts, same lean remote user and cipher), then pulls them with burst_sync_bench and with
`scp -r`, each once under strace: `strace -f -c` of the client process tree (syscalls), and
`strace -f -e trace=execve,clone,clone3,fork,vfork` of the sshd listener, which follows every
process the pod side starts for that connection (processes and programs run). With
--callgrind it also runs burst's client once under `valgrind --tool=callgrind` (instructions
executed, Ir; 50-100x slower, so keep SIZE small) and prints the functions whose Ir grew most
between the smallest and the largest N. Prints a Markdown table, and the per-file slope
(largest N minus smallest, divided by the difference in N).
"""
import argparse, os, re, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sync_bench as sb  # noqa: E402


def strace_client(cmd, out, env=None):
    """Runs cmd under strace -f -c; returns (total calls, {syscall: calls})."""
    subprocess.run(["strace", "-f", "-c", "-o", out] + cmd, check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    calls, total = {}, 0
    for line in open(out):
        f = line.split()
        # "% time  seconds  usecs/call  calls  errors  syscall"; errors may be blank.
        if len(f) >= 5 and re.match(r"^[\d.]+$", f[0]) and f[-1] != "total":
            calls[f[-1]] = int(f[3])
        if f and f[-1] == "total":
            total = int(f[3 if len(f) >= 5 else 2])
    return total, calls


def strace_pod(pid, out, action):
    """Runs action() while strace follows sshd `pid` and its children; returns
    (processes started, {program: times execve'd})."""
    tr = subprocess.Popen(["strace", "-f", "-qq", "-o", out, "-e",
                           "trace=execve,clone,clone3,fork,vfork", "-p", str(pid)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)  # attached before the connection comes
    try:
        action()
        time.sleep(0.3)
    finally:
        tr.send_signal(signal.SIGINT)
        tr.wait()
    forks, progs = 0, {}
    for line in open(out):
        # A fork returns the child's pid in the parent ("= 1234"); a failed one "= -1".
        if re.search(r"(clone3?|v?fork)(\(| resumed>)", line) and re.search(r"= [1-9]\d*$",
                                                                            line.strip()):
            forks += 1
        # An execve that succeeded ("= 0"), or was cut by another thread's line (counted too;
        # a PATH search's failed tries end in "= -1 ENOENT" and are not).
        m = re.search(r'execve\("([^"]+)"', line)
        if m and (line.rstrip().endswith("= 0") or "<unfinished" in line):
            p = os.path.basename(m.group(1))
            progs[p] = progs.get(p, 0) + 1
    return forks, progs


def callgrind_ir(cmd, out, env):
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + cmd,
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ann = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                         stdout=subprocess.PIPE, text=True).stdout
    total, funcs = 0, {}
    for line in ann.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\(?[\d.%\s)]*\s*PROGRAM TOTALS", line)
        if m:
            total = int(m.group(1).replace(",", ""))
            continue
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line)
        if m and ":" in m.group(2):
            funcs[m.group(2).strip()] = int(m.group(1).replace(",", ""))
    return total, funcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", default="50,150,500")
    ap.add_argument("--size-kib", type=int, default=1024)
    ap.add_argument("--build-dir", default=os.path.join(sb.ROOT, "build-bench"))
    ap.add_argument("--callgrind", action="store_true")
    a = ap.parse_args()
    counts = [int(x) for x in a.counts.split(",")]
    if not os.path.exists(os.path.join(a.build_dir, "CMakeCache.txt")):
        sb.sh(["cmake", "-S", sb.ROOT, "-B", a.build_dir, "-DBURST_TESTS=OFF",
               "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], stdout=subprocess.DEVNULL)
    sb.sh(["cmake", "--build", a.build_dir, "--target", "burst_sync_bench", "-j2"],
          stdout=subprocess.DEVNULL)
    tool = os.path.join(a.build_dir, "burst_sync_bench")
    work = tempfile.mkdtemp(prefix="burst-pull-profile-")
    net = sb.Loopback()
    sshd = None
    env = dict(os.environ, BURST_SSH_CIPHERS=sb.CIPHER)
    rows, irs = [], {}
    try:
        sshd = sb.Sshd(work, net)
        sshd_pid = int(open(os.path.join(work, "sshd.pid")).read())
        host = f"{sshd.user}@{sshd.host}"
        pod = os.path.join(work, "pod")
        for n in counts:
            d = os.path.join(pod, f"c{n}")
            os.makedirs(d)
            for i in range(n):
                sb.write_random(os.path.join(d, f"clip_{i:04d}.wav"), a.size_kib << 10)
            sb.give_to(sshd.user, pod)
            home = os.path.join(work, "home")
            pull = [tool, "pull", sshd.host, str(sshd.port), sshd.user, sshd.key, f"c{n}/*",
                    os.path.join(home, "b"), pod]
            scp = ["scp", "-q", "-r", "-P", str(sshd.port), "-i", sshd.key, "-c", sb.CIPHER,
                   "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                   f"{host}:{d}", os.path.join(home, "s")]
            for name, cmd, e in (("burst", pull, env), ("scp -r", scp, None)):
                shutil.rmtree(home, ignore_errors=True)
                os.makedirs(home)
                res = {}

                def client():
                    res["c"] = strace_client(cmd, os.path.join(work, "client.strace"), e)

                forks, progs = strace_pod(sshd_pid, os.path.join(work, "pod.strace"), client)
                total, calls = res["c"]
                top = ", ".join(f"{k} {v}" for k, v in
                                sorted(calls.items(), key=lambda kv: -kv[1])[:6])
                rows.append((n, name, total, forks, sum(progs.values()),
                             " ".join(f"{k}x{v}" for k, v in sorted(progs.items())), top))
            if a.callgrind:
                shutil.rmtree(home, ignore_errors=True)
                os.makedirs(home)
                irs[n] = callgrind_ir(pull, os.path.join(work, f"cg.{n}"), env)
            shutil.rmtree(d)
        print(f"\n{a.size_kib} KiB files, loopback, cipher {sb.CIPHER}; one run each under strace\n")
        print("| files | tool | client syscalls | pod processes started (forks) | pod execve | "
              "programs (pod) | client's most frequent syscalls |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(str(x) for x in r) + " |")
        lo, hi = min(counts), max(counts)
        if hi > lo:
            print(f"\nper file, from {lo} to {hi} files:")
            for name in ("burst", "scp -r"):
                a_ = next(r for r in rows if r[0] == lo and r[1] == name)
                b_ = next(r for r in rows if r[0] == hi and r[1] == name)
                print(f"  {name}: {(b_[2] - a_[2]) / (hi - lo):.1f} client syscalls, "
                      f"{(b_[3] - a_[3]) / (hi - lo):.2f} pod forks, "
                      f"{(b_[4] - a_[4]) / (hi - lo):.2f} pod execve")
        if irs:
            print("\nburst client instructions (callgrind Ir):")
            for n in counts:
                print(f"  {n} files: {irs[n][0]:,}")
            if hi > lo:
                print(f"  per file: {(irs[hi][0] - irs[lo][0]) / (hi - lo):,.0f}")
                f_lo, f_hi = irs[lo][1], irs[hi][1]
                grow = sorted(((f_hi.get(k, 0) - f_lo.get(k, 0), k) for k in f_hi), reverse=True)
                print("  functions whose Ir grew most (per file):")
                for g, k in grow[:12]:
                    print(f"    {g / (hi - lo):>12,.0f}  {k}")
    finally:
        if sshd is not None:
            sshd.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
