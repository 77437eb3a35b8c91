#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench on a machine too loaded to measure every round, without
QEMU: qemu/bench.py with its boot() replaced by one that fails as such a
machine makes boots fail.

    qemu/bench-check.py OUT_DIR

Three rounds: the first's cold boot times out once and then misses its
stable sched_clock before it is measured, the second's cold boot never
gets there (the round is dropped), the third's spawn times out once.
The message boot works, the update boot fails twice.  bench.py must still
write OUT_DIR/results.md with the two rounds measured, the one dropped
and the six attempts left out, the message figures, the update's two
attempts and "Not measured" for it, and both pictures.  Prints "PASS bench_logic:check" or
"FAIL bench_logic:check: why" lines.
"""
import importlib.util
import os
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(here, "bench.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

calls = {"cold": 0, "spawn": 0, "update": 0}
# Per boot kind, what its Nth call does: "timeout", "unstable" or "ok"
plan = {"cold": ["timeout", "unstable", "ok",
                 "timeout", "timeout", "unstable",
                 "ok"],
        "spawn": ["ok", "timeout", "ok"],
        "update": ["timeout", "timeout"]}
msg_lines = [b"MKBENCH: cpu=0 other=2 rounds=100 round_trip_ns=30000 "
             b"smp_call_ns=36000 burst=100 burst_quiet_ns=1000000 "
             b"burst_quiet_doorbells=3 burst_every_ns=20000000 "
             b"burst_every_doorbells=100",
             b"MKBENCH: user_rt_us 60.0 70.5 80.0 95.0 400.0",
             b"MKBENCH: user_rt_rounds=5 user_rt_lost=0",
             b"MKBENCH: stall_cpu=0 stall_secs=5 stall_quiet_us=900 "
             b"stall_flood_us=1200 stall_flood_doorbells=77",
             b"MKBENCH: done"]


def fake_boot(args, ports, want, keep=None, optional=()):
    cmdline = args[args.index("-append") + 1]
    kind = ("cold" if "mktoken=cold" in cmdline else
            "update" if "updatebench" in cmdline else
            "msg" if "msgbench" in cmdline else "spawn")
    if kind == "msg":
        return 0.0, {keep: list(msg_lines)}
    what = plan[kind][calls[kind]]
    calls[kind] += 1
    if what == "timeout":
        raise RuntimeError("no %r after %d s" % (want[-1], bench.TIMEOUT))
    # Every text in the order asked for, 10 ms apart
    seen = {w: 1.0 + 0.01 * i for i, w in enumerate(want)}
    for w in optional:
        if what != "unstable" and b"sched_clock" in w[1]:
            seen[w] = seen[want[-1]]
    return 1.0, seen


def main():
    out = sys.argv[1]
    failed = []

    def check(name, ok, why):
        print("PASS bench_logic:%s" % name if ok else
              "FAIL bench_logic:%s: %s" % (name, why))
        if not ok:
            failed.append(name)

    # Nothing of an earlier run may pass for this one's
    shutil.rmtree(out, ignore_errors=True)
    bench.boot = fake_boot
    bench.machine = lambda: "a test machine"
    sys.argv = ["bench.py", "--runs", "3", "--out", out, "--about", "a test",
                "host", "spawn.cpio", "instance", "instance.cpio"]
    ret = bench.main()
    check("exit", ret == 0, "bench.py exited %d with two rounds measured"
          % ret)
    try:
        with open(os.path.join(out, "results.md")) as f:
            md = f.read()
    except OSError as e:
        check("results", False, str(e))
        return 1
    for name, text in (
            ("rounds_counted", "Rounds: 2 of 3 measured, 1 dropped; 6 "
             "attempts not measured"),
            ("attempts_named", "round 2: cold boot: attempt 3 of 3 not "
             "measured (its kernel did not mark sched_clock stable)"),
            ("spawn_figures", "| **to init's line** | **"),
            ("message_figures", "| round trip / smp_call | 0.83 |"),
            ("round_trips", "| 60 / 80 / 400 / 400 / 400 µs |"),
            ("update_attempts_named", "- update boot: attempt 2 of 2 not "
             "measured"),
            ("update_not_measured", "\n\nNot measured.\n")):
        check(name, text in md, "results.md lacks %r" % text)
    check("pictures_drawn", "gnuplot did not draw" not in md,
          "results.md says gnuplot did not draw the pictures")
    for pic in ("spawn-phases.png", "msg-roundtrip.png"):
        path = os.path.join(out, pic)
        check(pic.replace("-", "_").replace(".png", "_drawn"),
              os.path.isfile(path) and os.path.getsize(path) > 1000,
              "no %s" % path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
