#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Spawn time of an instance against a cold QEMU boot of the same kernel,
and the figures of messages between host and instance.

    qemu/bench.py --runs N [--out DIR] [--about TEXT]
                  HOST_BZIMAGE SPAWN_CPIO INSTANCE_BZIMAGE INSTANCE_CPIO

Run by qemu/spawn.sh --bench, which builds the initramfs images.  Each
round boots two machines, one after the other, and stamps every serial
line on this side as it arrives:

  cold   QEMU with one CPU and the instance's memory boots the instance
         kernel and initramfs itself: from QEMU's start to the init's
         "MKINSTANCE: token=" line on ttyS0.
  spawn  the host (qemu/init/spawn.c with mkspawn=bench) loads the same
         kernel and initramfs as instance 1 and starts it: from the
         host's "$ multikernel start" line on ttyS0 to the instance's
         "MKINSTANCE: token=" line on ttyS1; the host's "ready" line says
         when the instance's kernel said READY.

Lines the kernels print on the way split them into phases: the cold
boot's firmware (SeaBIOS's "Booting from ROM") and its loading and
decompressing (the banner, earlyprintk=serial); the spawn's tool and
start call (the host kernel's "starting" and "started" lines: its RCU
grace period, INIT and STARTUP, the trampoline); then for both the
kernel's first steps until its console is registered (the instance has
no early console: what it logged before comes out at once then, and the
host decompressed it at load), the patching of alternatives ("Freeing SMP
alternatives memory"), the initcalls up to the late one that marks
sched_clock stable, the freeing of init memory, the rest up to "Run
/init", and init's start to its line.

A round that cannot be measured is tried again, then dropped: a boot
that does not get there within TIMEOUT seconds (a loaded machine), or a
cold boot whose kernel did not mark sched_clock stable (its TSC
calibration failed, as happens now and then under TCG); each attempt
left out is counted and named.  Each phase is printed as the median of
the rounds measured, the spawn's next to the cold boot's where both have
it.

Then one more boot (mkspawn=msgbench) runs the host's message bench
(debugfs multikernel/msg_bench) with the instance on CPU 1, once its user
space answered, and the host on CPUs 0 and 2: the round trip to the
instance against the host's own
smp_call_function_single() to CPU 2, and a burst with doorbells only
while the instance is idle against one doorbell per message; then the
longest stall of a task on the CPU that takes the instance's doorbells
(its doorbell_cpu) over 5 s with the instance quiet, against the same
while the instance floods its tty over messages (hvc0); and 1,000 round
trips from the host's user space through the instance's echo service,
each timed on its own, for their distribution.

A last boot (mkspawn=updatebench) replaces the running instance by a
new one on the same CPU five times (multikernel update): the downtime
from the old instance's last message (an echo from its user space) to
the new one's READY, against the new one's own start to READY.

Prints each round, then the medians and their ratios.  With --out, also
writes DIR/results.md: the date, the machine (and --about: what was
measured), every figure with its spread (median, minimum and maximum of
the rounds) in tables, the attempts left out, and two pictures drawn
with gnuplot: the phases of a spawn against a cold boot
(spawn-phases.png) and the distribution of the user-space round trips
(msg-roundtrip.png).  Figures, not a test: it exits non-zero only when
no round at all was measured.
"""
import argparse
import os
import selectors
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

MARKER = b"MKINSTANCE: token="
# One colour for each phase in the picture
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
TIMEOUT = 120


def boot(args, ports, want, keep=None, optional=()):
    """Run QEMU with serial ports on sockets, the first ones named in
    @ports; return the time of QEMU's start and, for each (port, text) of
    @want, when the text arrived; also for each of @optional that arrived
    before the last of @want.  With @keep, a (port, prefix), the lines
    of that port that begin with prefix go into seen[keep], a list."""
    tmp = tempfile.mkdtemp(prefix="mk-bench-")
    sel = selectors.DefaultSelector()
    listeners, serial = [], []
    for i in range(ports):
        path = os.path.join(tmp, "ttyS%d" % i)
        ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ls.bind(path)
        ls.listen(1)
        listeners.append(ls)
        serial += ["-chardev", "socket,id=s%d,path=%s" % (i, path),
                   "-serial", "chardev:s%d" % i]
    qemu = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", "max",
            "-nographic", "-no-reboot", "-monitor", "none",
            "-display", "none"] + serial + args
    t0 = time.monotonic()
    proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    conns = []
    seen, buf = {}, [b""] * ports
    try:
        for i, ls in enumerate(listeners):
            ls.settimeout(30)
            try:
                conn, _ = ls.accept()
            except socket.timeout:
                raise RuntimeError("QEMU did not open serial port %d "
                                   "within 30 s" % i)
            conn.setblocking(False)
            sel.register(conn, selectors.EVENT_READ, i)
            conns.append(conn)
        while len([w for w in want if w in seen]) < len(want):
            if time.monotonic() - t0 > TIMEOUT:
                raise RuntimeError("no %r after %d s" %
                                   ([w for w in want if w not in seen],
                                    TIMEOUT))
            for key, _ in sel.select(timeout=1):
                data = key.fileobj.recv(65536)
                now = time.monotonic()
                if not data:
                    sel.unregister(key.fileobj)
                    continue
                # Texts are looked for as they arrive, not at the end of
                # their line: SeaBIOS ends its last one with no newline.
                port = key.data
                buf[port] += data
                for w in list(want) + list(optional):
                    if w[0] == port and w not in seen and w[1] in buf[port]:
                        seen[w] = now
                end = buf[port].rfind(b"\n") + 1
                if keep and keep[0] == port:
                    seen.setdefault(keep, []).extend(
                        line for line in buf[port][:end].split(b"\n")
                        if line.startswith(keep[1]))
                buf[port] = buf[port][end:]
    finally:
        proc.kill()
        proc.wait()
        for s in conns + listeners:
            s.close()
        for i in range(ports):
            os.unlink(os.path.join(tmp, "ttyS%d" % i))
        os.rmdir(tmp)
    return t0, seen


def attempts(what, tries, fn, notes):
    """fn() until it returns without a RuntimeError, at most @tries times:
    its result, or None.  Each attempt that failed is printed and noted."""
    for i in range(tries):
        try:
            return fn()
        except RuntimeError as e:
            notes.append("%s: attempt %d of %d not measured (%s)" %
                         (what, i + 1, tries, e))
            print("  %s" % notes[-1], flush=True)
    return None


def spread(v, fmt="%.3f"):
    """The median of @v with its minimum and maximum, or "--" """
    if not v:
        return "--"
    if len(v) == 1:
        return fmt % v[0]
    return (fmt + " (" + fmt + "-" + fmt + ")") % (
        statistics.median(v), min(v), max(v))


def percentile(v, p):
    s = sorted(v)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def machine():
    """The CPU model, how many CPUs, QEMU's version and the load now"""
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    qemu = subprocess.run(["qemu-system-x86_64", "--version"],
                          capture_output=True, text=True).stdout
    qemu = qemu.splitlines()[0] if qemu else "QEMU (version unknown)"
    return "%s, %d CPUs; %s under TCG; load average %.2f at the start" % (
        model, os.cpu_count(), qemu, os.getloadavg()[0])


def gnuplot(script):
    """Run gnuplot on @script: whether it drew"""
    try:
        return subprocess.run(["gnuplot"], input=script, text=True,
                              capture_output=True).returncode == 0
    except OSError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", help="directory for results.md and pictures")
    ap.add_argument("--about", default="", help="what was measured")
    ap.add_argument("host_bzimage")
    ap.add_argument("spawn_cpio")
    ap.add_argument("instance_bzimage")
    ap.add_argument("instance_cpio")
    a = ap.parse_args()

    rom, banner = b"Booting from ROM", b"Linux version"
    console, alt = b"printk: legacy console [ttyS", \
        b"Freeing SMP alternatives memory"
    stable = b"sched_clock: Marking stable"
    initmem = b"Freeing unused kernel image (initmem)"
    run_init = b"Run /init as init process"
    start = b"$ multikernel start"
    starting = b"multikernel: instance 1 starting on CPU"
    started = b"multikernel: instance 1 started on CPU"
    ready = b"multikernel: instance 1 ready"
    # Which way the instance's kernel came to run: the host decompressed
    # and placed it at load, or left it to its own decompressor
    unpacked = b"multikernel: load: kernel decompressed"
    left = b"multikernel: load: kernel left to decompress itself"
    # (name, spawn's (from, to), cold's): stamps as (port, text), None
    # for QEMU's start; the instance kernel prints on port 1
    phases = [("firmware (SeaBIOS, option ROMs)", None, (None, (0, rom))),
              ("the tool", ((0, start), (0, starting)), None),
              ("start call: grace period, INIT/STARTUP, trampoline",
               ((0, starting), (0, started)), None),
              ("loading, decompressing, to the banner", None,
               ((0, rom), (0, banner))),
              ("the kernel's first steps, to its console",
               ((0, started), (1, console)), ((0, banner), (0, console)))]
    steps = [("console to alternatives patched", console, alt),
             ("to the last initcall (sched_clock stable)", alt, stable),
             ("freeing init memory", stable, initmem),
             ("to Run /init", initmem, run_init),
             ("init to its line", run_init, MARKER)]
    phases += [(name, ((1, frm), (1, to)), ((0, frm), (0, to)))
               for name, frm, to in steps]
    cold, spawn, ready_at, paths, notes = [], [], [], [], []
    ph = {p[0]: ([], []) for p in phases}
    about = machine()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())

    def cold_boot():
        want = [(0, t) for t in (rom, banner, console, alt, initmem,
                                 run_init, MARKER)]
        t0, seen = boot(["-smp", "1", "-m", "64M",
                         "-kernel", a.instance_bzimage,
                         "-initrd", a.instance_cpio, "-append",
                         "console=ttyS0 earlyprintk=serial mktoken=cold"],
                        1, want, optional=[(0, stable)])
        # A kernel whose TSC calibration failed (now and then under TCG,
        # which has no HPET without ACPI; more often on a loaded machine)
        # runs with an unstable TSC and never marks sched_clock stable
        if (0, stable) not in seen:
            raise RuntimeError("its kernel did not mark sched_clock stable")
        seen[None] = t0
        return seen

    def spawn_boot():
        want = [(0, start), (0, starting), (0, started), (0, ready)] + \
               [(1, t) for t in (banner, console, alt, stable, initmem,
                                 run_init, MARKER)]
        return boot(["-smp", "3", "-m", "1G",
                     "-kernel", a.host_bzimage, "-initrd", a.spawn_cpio,
                     "-append", "console=ttyS0 panic=-1 mkspawn=bench "
                     "mktoken=spawn multikernel_pool=128M"],
                    3, want, optional=[(0, unpacked), (0, left)])[1]

    # A round that cannot be measured (a boot that times out on a busy
    # machine, a cold boot without a stable sched_clock) is tried again,
    # then dropped; both are counted, and the rounds measured are kept
    dropped = 0
    for n in range(a.runs):
        seen = attempts("round %d: cold boot" % (n + 1), 3, cold_boot, notes)
        seen_s = seen and attempts("round %d: spawn" % (n + 1), 2,
                                   spawn_boot, notes)
        if not seen_s:
            dropped += 1
            print("round %d: dropped" % (n + 1), flush=True)
            continue
        cold.append(seen[(0, MARKER)] - seen[None])
        cold_banner = seen[(0, banner)] - seen[None]
        paths.append("decompressed at load" if (0, unpacked) in seen_s else
                     "left to its decompressor" if (0, left) in seen_s else
                     "load path not logged")
        spawn.append(seen_s[(1, MARKER)] - seen_s[(0, start)])
        ready_at.append(seen_s[(0, ready)] - seen_s[(0, start)])
        for name, sp, cp in phases:
            for i, (stamps, at) in enumerate(((sp, seen_s), (cp, seen))):
                if stamps:
                    ph[name][i].append(at[stamps[1]] - at[stamps[0]])
        print("round %d: cold boot %.2f s (banner at %.2f s); spawn %.2f s "
              "(banner at %.2f s, READY at %.2f s; kernel %s)" %
              (n + 1, cold[-1], cold_banner, spawn[-1],
               seen_s[(1, banner)] - seen_s[(0, start)], ready_at[-1],
               paths[-1]), flush=True)

    med = statistics.median
    md = ["# make bench: results", "",
          "Written by `make bench` (`scripts/bench.sh`, `qemu/bench.py`) "
          "on %s.  Figures, not tests: a run on another day or machine "
          "gives others." % when, "",
          "- Machine: %s." % about]
    if a.about:
        md.append("- Measured: %s." % a.about)
    md.append("- Rounds: %d of %d measured, %d dropped; %d attempts not "
              "measured (each tried again or, the last, given up):" %
              (len(spawn), a.runs, dropped, len(notes))
              if notes else "- Rounds: %d of %d measured, none dropped or "
              "tried again." % (len(spawn), a.runs))
    md += ["  - %s" % n for n in notes]
    md += ["", "## An instance's start against a cold boot", "",
           "From the host's `multikernel start` (spawn), or from QEMU's "
           "start (a cold boot of the same kernel and initramfs on one "
           "CPU), to the instance's init printing its first line, phase "
           "by phase; in seconds, the median of the rounds measured with "
           "their minimum and maximum.", "",
           "| phase | spawn | cold boot |", "|---|---|---|"]
    if spawn:
        print("median of %d rounds, in seconds:%s spawn   cold" %
              (len(spawn), " " * 26))
        for name, _, _ in phases:
            sp, cp = (("%.3f" % med(v)) if v else "--" for v in ph[name])
            print("  %-52s %6s %6s" % (name, sp, cp))
            md.append("| %s | %s | %s |" % (name, spread(ph[name][0]),
                                             spread(ph[name][1])))
        print("  %-52s %6.3f %6.3f" % ("to init's line", med(spawn),
                                       med(cold)))
        print("  the instance said READY at %.3f" % med(ready_at))
        for path in sorted(set(paths)):
            print("  the instance's kernel was %s in %d of %d spawns" %
                  (path, paths.count(path), len(paths)))
        print("spawn/cold ratio: %.2f (goal <= 0.50)" %
              (med(spawn) / med(cold)))
        md += ["| **to init's line** | **%s** | **%s** |" %
               (spread(spawn), spread(cold)),
               "| the instance's READY | %s | |" % spread(ready_at), "",
               "spawn/cold: **%.2f** (goal: at most 0.50).  The instance's "
               "kernel was %s." % (med(spawn) / med(cold), "; ".join(
                   "%s in %d of %d spawns" % (p, paths.count(p), len(paths))
                   for p in sorted(set(paths)))), "",
               "![phases](spawn-phases.png)"]
    else:
        md.append("| no round measured | | |")
        print("no round measured")

    # Messages: one more boot, host on CPUs 0 and 2, the instance on 1
    keep = (2, b"MKBENCH: ")

    def host_boot(mode):
        seen = boot(["-smp", "3", "-m", "1G",
                     "-kernel", a.host_bzimage, "-initrd", a.spawn_cpio,
                     "-append", "console=ttyS0 panic=-1 mkspawn=%s "
                     "mktoken=msg multikernel_pool=128M" % mode],
                    3, [(2, b"MKBENCH: done")], keep)[1]
        lines = [w.decode(errors="replace") for w in seen.get(keep, [])]
        errors = [w for w in lines if w.startswith("MKBENCH: error")]
        if errors:
            raise RuntimeError(errors[0])
        return lines

    md += ["", "## Messages between the host and an instance", "",
           "One boot: the instance on CPU 1, the host on CPUs 0 and 2.", ""]
    boot_notes = []
    lines = attempts("message boot", 2, lambda: host_boot("msgbench"),
                     boot_notes)
    md += ["- %s" % n for n in boot_notes] + ([""] if boot_notes else [])
    rts, fig = [], {}
    for line in lines or []:
        words = line.split()[1:]
        if words and words[0] == "user_rt_us":
            rts += [float(w) for w in words[1:]]
            continue
        for word in words:
            k, _, v = word.partition("=")
            fig[k] = v
    if "round_trip_ns" in fig and "stall_quiet_us" in fig:
        rt, smp = int(fig["round_trip_ns"]), int(fig["smp_call_ns"])
        quiet, every = int(fig["burst_quiet_ns"]), \
            int(fig["burst_every_ns"])
        sq, sf = int(fig["stall_quiet_us"]), int(fig["stall_flood_us"])
        print("messages (median of %s): host -> instance -> host round "
              "trip %.1f us, host smp_call_function_single() CPU %s -> %s "
              "-> %s %.1f us: ratio %.2f (goal <= 1.20)" %
              (fig["rounds"], rt / 1000, fig["cpu"], fig["other"],
               fig["cpu"], smp / 1000, rt / smp))
        print("burst of %s messages: %.2f ms with %s doorbells (only "
              "while the instance is idle), %.2f ms with %s (one per "
              "message): throughput ratio %.1f (goal >= 10)" %
              (fig["burst"], quiet / 1e6, fig["burst_quiet_doorbells"],
               every / 1e6, fig["burst_every_doorbells"], every / quiet))
        print("doorbell CPU %s: a task's longest stall over %s s %.1f ms "
              "with the instance quiet, %.1f ms while it floods its tty "
              "over messages (%s doorbells taken): ratio %.2f (goal <= 2)"
              % (fig["stall_cpu"], fig["stall_secs"], sq / 1000, sf / 1000,
                 fig["stall_flood_doorbells"], sf / max(sq, 1)))
        md += ["| figure | value | goal |", "|---|---|---|",
               "| round trip host → instance → host, kernel to kernel "
               "(median of %s; test kernels' debugfs `msg_bench`) | "
               "%.1f µs | |" % (fig["rounds"], rt / 1000),
               "| the host's `smp_call_function_single()` CPU %s → %s → %s "
               "(median of %s) | %.1f µs | |" %
               (fig["cpu"], fig["other"], fig["cpu"], fig["rounds"],
                smp / 1000),
               "| round trip / smp_call | %.2f | at most 1.20 |" %
               (rt / smp),
               "| burst of %s messages, doorbells only while the instance "
               "is idle (%s doorbells) | %.2f ms | |" %
               (fig["burst"], fig["burst_quiet_doorbells"], quiet / 1e6),
               "| the same burst, a doorbell per message (%s) | %.2f ms | |"
               % (fig["burst_every_doorbells"], every / 1e6),
               "| throughput ratio | %.1f | at least 10 |" % (every / quiet),
               "| longest stall of a task on the doorbell CPU %s over %s s, "
               "the instance quiet | %.1f ms | |" %
               (fig["stall_cpu"], fig["stall_secs"], sq / 1000),
               "| the same while the instance floods its tty over messages "
               "(%s doorbells) | %.1f ms | |" %
               (fig["stall_flood_doorbells"], sf / 1000),
               "| stall ratio | %.2f | at most 2 |" % (sf / max(sq, 1))]
        if rts:
            pct = [(p, percentile(rts, p)) for p in (0, 50, 90, 99, 100)]
            print("user space -> instance's user space -> user space, %d "
                  "round trips: %s us" % (len(rts), ", ".join(
                      "p%d %.0f" % pv for pv in pct)))
            md += ["| round trip through the instance's user space "
                   "(`/dev/multikernel` to its echo service and back; %d "
                   "of %s, %s lost): minimum / median / 90th / 99th "
                   "percentile / maximum | %s µs | |" %
                   (len(rts), fig.get("user_rt_rounds", "?"),
                    fig.get("user_rt_lost", "?"),
                    " / ".join("%.0f" % v for _, v in pct)),
                   "", "![round trips](msg-roundtrip.png)"]
    else:
        md.append("Not measured%s." % ("" if boot_notes else
                                       ": no message figures"))
        print("messages: not measured")

    # Kernel update: one more boot
    md += ["", "## A kernel update", ""]
    boot_notes = []
    lines = attempts("update boot", 2, lambda: host_boot("updatebench"),
                     boot_notes)
    md += ["- %s" % n for n in boot_notes] + ([""] if boot_notes else [])
    down, new_ready = [], []
    for line in lines or []:
        upd = dict(w.partition("=")[::2] for w in line.split()[2:])
        if "downtime_ms" in upd and float(upd["downtime_ms"]) >= 0:
            down.append(float(upd["downtime_ms"]))
            new_ready.append(float(upd["spawn_ready_ms"]))
            print("update round %s: downtime %.0f ms, the new instance's "
                  "start to READY %.0f ms" % (upd["round"], down[-1],
                                              new_ready[-1]))
    if down:
        print("kernel update (median of %d): downtime %.0f ms from the old "
              "instance's last message to the new one's READY, of which "
              "the new one's start to READY %.0f ms: downtime/spawn %.2f" %
              (len(down), med(down), med(new_ready),
               med(down) / med(new_ready)))
        md += ["`multikernel update` %d times in one boot: from the old "
               "instance's last message to the new one's READY "
               "(downtime), and of it the new one's start to READY; in "
               "ms, the median with the minimum and maximum." % len(down),
               "", "| downtime | the new instance's start to READY | "
               "ratio |", "|---|---|---|",
               "| %s | %s | %.2f |" % (spread(down, "%.0f"),
                                      spread(new_ready, "%.0f"),
                                      med(down) / med(new_ready))]
    else:
        md.append("Not measured%s." % ("" if boot_notes else
                                       ": no update figures"))
        print("kernel update: not measured")

    if a.out:
        write_out(a.out, md, phases, ph, rts)
    return 0 if spawn else 1


def write_out(out, md, phases, ph, rts):
    """results.md, and the pictures of the phases and the round trips"""
    med = statistics.median
    os.makedirs(out, exist_ok=True)
    data = tempfile.mkdtemp(prefix="mk-bench-plot-")
    names = [n for n, _, _ in phases]
    with open(os.path.join(data, "spawn-phases.dat"), "w") as f:
        f.write("what %s\n" % " ".join('"%s"' % n for n in names))
        for i, what in enumerate(("spawn", "cold boot")):
            f.write('"%s" %s\n' % (what, " ".join(
                "%.4f" % (med(ph[n][i]) if ph[n][i] else 0) for n in names)))
    drawn = gnuplot("""
set terminal pngcairo size 900,520 font ",10"
set output "%s/spawn-phases.png"
set title "An instance's start against a cold boot of the same kernel (medians)" noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
%s
set boxwidth 0.5
set ylabel "seconds"
set key outside right top vertical Left reverse noenhanced
set yrange [0:*]
plot for [i=2:%d] "%s/spawn-phases.dat" using i:xtic(1) title columnheader(i)
""" % (out, "\n".join("set linetype %d lc rgb \"%s\"" % (i + 1, c)
                      for i, c in enumerate(COLOURS)), len(names) + 1, data))
    if rts:
        lo, hi = min(rts), percentile(rts, 99)
        width = max((hi - lo) / 40.0, 0.1)
        bins = {}
        for v in rts:
            b = min(int((v - lo) / width), 40)
            bins[b] = bins.get(b, 0) + 1
        with open(os.path.join(data, "msg-roundtrip.dat"), "w") as f:
            for b in range(41):
                f.write("%.2f %d\n" % (lo + (b + 0.5) * width,
                                       bins.get(b, 0)))
        drawn = gnuplot("""
set terminal pngcairo size 900,420 font ",10"
set output "%s/msg-roundtrip.png"
set title "%d round trips through the instance's user space (the last bar: above the 99th percentile)" noenhanced
set style fill solid 0.85 border -1
set xlabel "microseconds"
set ylabel "round trips"
set key off
plot "%s/msg-roundtrip.dat" using 1:2 with boxes
""" % (out, len(rts), data)) and drawn
    shutil.rmtree(data)
    if not drawn:
        md += ["", "(gnuplot did not draw the pictures.)"]
        print("bench: gnuplot did not draw the pictures", file=sys.stderr)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("results: %s/results.md" % out)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        sys.exit(1)
