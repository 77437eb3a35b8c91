#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Spawn time of an instance against a cold QEMU boot of the same kernel,
and the figures of messages between host and instance.

    qemu/bench.py --runs N HOST_BZIMAGE SPAWN_CPIO INSTANCE_BZIMAGE INSTANCE_CPIO

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
/init", and init's start to its line.  A cold boot whose kernel did not
mark sched_clock stable (its TSC calibration failed, as happens now and
then under TCG) is left out and booted again; the count is printed.

Each phase is printed as the median of its rounds, the spawn's next to
the cold boot's where both have it.

Then one more boot (mkspawn=msgbench) runs the host's message bench
(debugfs multikernel/msg_bench) with the instance on CPU 1, once its user
space answered, and the host on CPUs 0 and 2: the round trip to the
instance against the host's own
smp_call_function_single() to CPU 2, and a burst with doorbells only
while the instance is idle against one doorbell per message; then the
longest stall of a task on the CPU that takes the instance's doorbells
(its doorbell_cpu) over 5 s with the instance quiet, against the same
while the instance floods its tty over messages (hvc0).

A last boot (mkspawn=updatebench) replaces the running instance by a
new one on the same CPU five times (multikernel update): the downtime
from the old instance's last message (an echo from its user space) to
the new one's READY, against the new one's own start to READY.

Prints each round, then the medians and their ratios.  A figure, not a
test: nothing here passes or fails but a boot that never gets there.
"""
import argparse
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time

MARKER = b"MKINSTANCE: token="
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
    for i, ls in enumerate(listeners):
        ls.settimeout(30)
        conn, _ = ls.accept()
        conn.setblocking(False)
        sel.register(conn, selectors.EVENT_READ, i)
        conns.append(conn)
    seen, buf = {}, [b""] * ports
    try:
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
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
    cold, spawn, ready_at, paths = [], [], [], []
    ph = {p[0]: ([], []) for p in phases}
    # A cold boot whose TSC calibration fails (now and then under TCG,
    # which has no HPET without ACPI) runs with an unstable TSC and never
    # marks sched_clock stable: it is booted again, and counted
    recalibrated = 0
    for n in range(a.runs):
        want = [(0, t) for t in (rom, banner, console, alt, initmem,
                                 run_init, MARKER)]
        for attempt in range(3):
            t0, seen = boot(["-smp", "1", "-m", "64M",
                             "-kernel", a.instance_bzimage,
                             "-initrd", a.instance_cpio, "-append",
                             "console=ttyS0 earlyprintk=serial mktoken=cold"],
                            1, want, optional=[(0, stable)])
            if (0, stable) in seen:
                break
            recalibrated += 1
        else:
            raise RuntimeError("three cold boots in a row did not mark "
                               "sched_clock stable")
        seen[None] = t0
        cold.append(seen[(0, MARKER)] - t0)
        cold_banner = seen[(0, banner)] - t0

        want = [(0, start), (0, starting), (0, started), (0, ready)] + \
               [(1, t) for t in (banner, console, alt, stable, initmem,
                                 run_init, MARKER)]
        _, seen_s = boot(["-smp", "3", "-m", "1G",
                          "-kernel", a.host_bzimage, "-initrd", a.spawn_cpio,
                          "-append", "console=ttyS0 panic=-1 mkspawn=bench "
                          "mktoken=spawn multikernel_pool=128M"],
                         3, want, optional=[(0, unpacked), (0, left)])
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
    print("median of %d rounds, in seconds:%s spawn   cold" %
          (a.runs, " " * 26))
    for name, _, _ in phases:
        sp, cp = (("%.3f" % med(v)) if v else "--" for v in ph[name])
        print("  %-52s %6s %6s" % (name, sp, cp))
    print("  %-52s %6.3f %6.3f" % ("to init's line", med(spawn), med(cold)))
    print("  the instance said READY at %.3f" % med(ready_at))
    for path in sorted(set(paths)):
        print("  the instance's kernel was %s in %d of %d spawns" %
              (path, paths.count(path), len(paths)))
    if recalibrated:
        print("  %d cold boot(s) left out and booted again: the kernel's "
              "TSC calibration failed, so it never marked sched_clock "
              "stable" % recalibrated)
    print("spawn/cold ratio: %.2f (goal <= 0.50)" % (med(spawn) / med(cold)))

    # Messages: one more boot, host on CPUs 0 and 2, the instance on 1
    keep = (2, b"MKBENCH: ")
    _, seen = boot(["-smp", "3", "-m", "1G",
                    "-kernel", a.host_bzimage, "-initrd", a.spawn_cpio,
                    "-append", "console=ttyS0 panic=-1 mkspawn=msgbench "
                    "mktoken=msg multikernel_pool=128M"],
                   3, [(2, b"MKBENCH: done")], keep)
    fig = {}
    for line in seen.get(keep, []):
        for word in line.decode(errors="replace").split()[1:]:
            k, _, v = word.partition("=")
            fig[k] = v
    if "round_trip_ns" not in fig:
        raise RuntimeError("no message figures: %r" % seen.get(keep))
    rt, smp = int(fig["round_trip_ns"]), int(fig["smp_call_ns"])
    quiet, every = int(fig["burst_quiet_ns"]), int(fig["burst_every_ns"])
    print("messages (median of %s): host -> instance -> host round trip "
          "%.1f us, host smp_call_function_single() CPU %s -> %s -> %s "
          "%.1f us: ratio %.2f (goal <= 1.20)" %
          (fig["rounds"], rt / 1000, fig["cpu"], fig["other"], fig["cpu"],
           smp / 1000, rt / smp))
    print("burst of %s messages: %.2f ms with %s doorbells (only while the "
          "instance is idle), %.2f ms with %s (one per message): "
          "throughput ratio %.1f (goal >= 10)" %
          (fig["burst"], quiet / 1e6, fig["burst_quiet_doorbells"],
           every / 1e6, fig["burst_every_doorbells"], every / quiet))
    if "stall_quiet_us" not in fig:
        raise RuntimeError("no stall figures: %r" % seen.get(keep))
    sq, sf = int(fig["stall_quiet_us"]), int(fig["stall_flood_us"])
    print("doorbell CPU %s: a task's longest stall over %s s %.1f ms with "
          "the instance quiet, %.1f ms while it floods its tty over "
          "messages (%s doorbells taken): ratio %.2f (goal <= 2)" %
          (fig["stall_cpu"], fig["stall_secs"], sq / 1000, sf / 1000,
           fig["stall_flood_doorbells"], sf / max(sq, 1)))

    # Kernel update: one more boot
    _, seen = boot(["-smp", "3", "-m", "1G",
                    "-kernel", a.host_bzimage, "-initrd", a.spawn_cpio,
                    "-append", "console=ttyS0 panic=-1 mkspawn=updatebench "
                    "mktoken=update multikernel_pool=128M"],
                   3, [(2, b"MKBENCH: done")], keep)
    down, ready = [], []
    for line in seen.get(keep, []):
        fig = dict(w.partition("=")[::2] for w in
                   line.decode(errors="replace").split()[2:])
        if "downtime_ms" in fig and float(fig["downtime_ms"]) >= 0:
            down.append(float(fig["downtime_ms"]))
            ready.append(float(fig["spawn_ready_ms"]))
            print("update round %s: downtime %.0f ms, the new instance's "
                  "start to READY %.0f ms" % (fig["round"], down[-1],
                                              ready[-1]))
    if not down:
        raise RuntimeError("no update figures: %r" % seen.get(keep))
    print("kernel update (median of %d): downtime %.0f ms from the old "
          "instance's last message to the new one's READY, of which the "
          "new one's start to READY %.0f ms: downtime/spawn %.2f" %
          (len(down), med(down), med(ready), med(down) / med(ready)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, OSError) as e:
        print("bench: %s" % e, file=sys.stderr)
        sys.exit(1)
