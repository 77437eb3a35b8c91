#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the QEMU monitor commands a test's init asks for.

    qemu/monitor.py RESULTS SOCKET LOG

Follows RESULTS, the raw file of the third serial port that qemu/run.sh
has QEMU write, and for each line "MKMONITOR: COMMAND" sends COMMAND to
QEMU's human monitor on the unix SOCKET (qemu/run.sh with MK_QEMU_MONITOR).
Each command and what the monitor answered goes to LOG.  The init judges
the effect itself.  Ends at the init's "MKTEST: DONE" line, or when QEMU
closes the monitor.
"""

import os
import socket
import sys
import time

PROMPT = b"(qemu) "


def answer(sock):
    """What the monitor printed up to its next prompt"""
    data = b""
    while not data.endswith(PROMPT):
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("QEMU closed its monitor")
        data += chunk
    return data[:-len(PROMPT)].decode(errors="replace")


def connect(path, secs=60):
    """The monitor, once QEMU listens on it"""
    deadline = time.monotonic() + secs
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            answer(sock)
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def lines(path):
    """RESULTS' lines as they come, until QEMU is gone"""
    while not os.path.exists(path):
        time.sleep(0.2)
    with open(path, "rb") as f:
        part = b""
        while True:
            chunk = f.readline()
            if not chunk:
                time.sleep(0.1)
                continue
            part += chunk
            if part.endswith(b"\n"):
                yield part.decode(errors="replace").strip("\r\n")
                part = b""


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: monitor.py RESULTS SOCKET LOG")
    results, path, log = sys.argv[1:]
    sock = connect(path)
    with open(log, "w") as out:
        for line in lines(results):
            if "MKTEST: DONE" in line:
                break
            tag = line.find("MKMONITOR: ")
            if tag < 0:
                continue
            command = line[tag + len("MKMONITOR: "):]
            sock.sendall(command.encode() + b"\n")
            # The monitor echoes the command, with line editing
            reply = answer(sock).replace("\r", "").split("\n", 1)
            out.write(f"(qemu) {command}\n{reply[1] if len(reply) > 1 else ''}")
            out.flush()


if __name__ == "__main__":
    try:
        main()
    except OSError:
        # QEMU ended, or never listened: the init's checks say what failed
        pass
