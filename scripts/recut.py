#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Re-cut the topic branch into new patches by a map, with git only.

    scripts/recut.py [--worktree DIR] [--topic BRANCH] [--explain OLD] MAP NEW_BRANCH

Every file the series touches gets a weave: each line any version of it
held, from the base and from each old patch's diff (-U0, no renames),
with the old patch that added it and the one that deleted it.  The map
(see scripts/recut.map) puts the old patches into new ones, in order:

    = subject of a new patch
    12          old patch 12 belongs to it
    12:path     only old patch 12's hunks in files under path
    12f         old patch 12 is folded: each hunk goes to the new patch
                that wrote the lines it deletes or sits after (a fix
                goes into the patch it fixes), hunks that move a line
                together; here only what has no such home

A hunk never goes before the new patch that wrote a line it deletes,
nor, when it adds indented lines (into a function, a structure, a
Kconfig entry), before the one that wrote the line it follows.
New patch N's tree is the weave read with the hunks of new patches 1..N:
a line shows once the patch that added it is in, until the one that
deleted it is; a line added and deleted within one new patch never shows.

Commits NEW_BRANCH in the worktree (it must not exist) on the base
branch, one commit per new patch, with the message in
scripts/recut.msgs/ whose first line is its subject (the subject
and a list of the old patches if there is none), and prints for each new patch its old patches and how
many of its lines a later new patch removes again (churn), a new C
file or header whose first lines come only with a later new patch, then
whether the last tree is the topic branch's, which it must be.
--explain OLD prints where each hunk of old patch OLD went (0: every
hunk that went elsewhere than its old patch).
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def git(wt, *args, inp=None):
    r = subprocess.run(["git", "-C", wt] + list(args), input=inp,
                       capture_output=True, check=True)
    return r.stdout


def parse_map(path):
    """[(subject, [(old, kind, path_prefix)])]"""
    groups = []
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("="):
            groups.append((line[1:].strip(), []))
            continue
        if not groups:
            sys.exit("%s:%d: an old patch before the first '='" % (path, n))
        for tok in line.split():
            m = re.fullmatch(r"(\d+)(f?)(?::(\S+))?", tok)
            if not m:
                sys.exit("%s:%d: cannot read %r" % (path, n, tok))
            groups[-1][1].append((int(m.group(1)), m.group(2) or "w",
                                  m.group(3)))
    return groups


class Line:
    __slots__ = ("text", "hadd", "hdel")

    def __init__(self, text, hadd):
        self.text, self.hadd, self.hdel = text, hadd, None


class Hunk:
    __slots__ = ("old", "path", "gone", "new", "before", "group")

    def __init__(self, old, path, gone, new, before):
        self.old, self.path, self.gone, self.new = old, path, gone, new
        self.before, self.group = before, None


HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def diffs(wt, commits):
    """{(old patch, path): its -U0 diff lines}"""
    out = {}
    for k, c in enumerate(commits, 1):
        path, header = None, False
        for d in git(wt, "diff", "--no-renames", "--no-color", "-U0",
                     c + "^", c).splitlines(keepends=True):
            if d.startswith(b"diff --git "):
                path, header = None, True
                continue
            if d.startswith(b"@@ "):
                header = False
            if header and d.startswith(b"+++ "):
                name = d[4:].rstrip(b"\n")
                if name != b"/dev/null":
                    path = name[2:].decode()
                continue
            if header and d.startswith(b"--- "):
                name = d[4:].rstrip(b"\n")
                path = None if name == b"/dev/null" else name[2:].decode()
                continue
            if path is not None and not header:
                out.setdefault((k, path), []).append(d)
    return out


def weave(wt, base, ncommits, path, patch_diffs, hunks):
    """The weave of @path: every line any version held, in order; its
    hunks are appended to @hunks"""
    try:
        text = git(wt, "show", "%s:%s" % (base, path))
        lines = [Line(t, None) for t in text.splitlines(keepends=True)]
    except subprocess.CalledProcessError:
        lines = []
    for k in range(1, ncommits + 1):
        diff = patch_diffs.get((k, path))
        if not diff:
            continue
        live = [ln for ln in lines if ln.hdel is None]
        pending = []
        for d in diff:
            m = HUNK.match(d)
            if m:
                start = int(m.group(1))
                cnt = 1 if m.group(2) is None else int(m.group(2))
                # -a,0 inserts after line a; -a,n replaces lines a..
                first = start if cnt == 0 else start - 1
                pending.append((live[first:first + cnt], [],
                                live[first - 1] if first > 0 else None))
            elif pending and d.startswith(b"+"):
                pending[-1][1].append(d[1:])
            elif pending and d.startswith(b"\\") and pending[-1][1]:
                # "\ No newline at end of file" after an added line
                pending[-1][1][-1] = pending[-1][1][-1].rstrip(b"\n")
        for gone, added, before in pending:
            h = Hunk(k, path, gone, [], before)
            hid = len(hunks)
            hunks.append(h)
            for ln in gone:
                ln.hdel = hid
            h.new = [Line(t, hid) for t in added]
            at = lines.index(before) + 1 if before is not None else 0
            while at < len(lines) and lines[at] in gone:
                at += 1
            lines[at:at] = h.new
    return lines


def moves(hunks, hids):
    """Give hunks of @hids (one old patch's, folded) that move a line
    within a file, one deleting it and another adding it, the later of
    their new patches"""
    parent = {h: h for h in hids}

    def find(h):
        while parent[h] != h:
            parent[h] = parent[parent[h]]
            h = parent[h]
        return h

    # A line moves when the old patch deletes it once and adds it once in
    # that file: lines such as "}" or "return 0;", which many hunks
    # delete and add, would tie unrelated hunks together.
    added, gone = {}, {}
    for hid in hids:
        for ln in hunks[hid].new:
            added.setdefault((hunks[hid].path, ln.text.strip()),
                             []).append(hid)
        for ln in hunks[hid].gone:
            gone.setdefault((hunks[hid].path, ln.text.strip()),
                            []).append(hid)
    for key, dels in gone.items():
        adds = added.get(key, [])
        if len(key[1]) < 8 or len(dels) != 1 or len(adds) != 1:
            continue
        if dels[0] != adds[0]:
            parent[find(dels[0])] = find(adds[0])
    top = {}
    for hid in hids:
        r = find(hid)
        top[r] = max(top.get(r, 0), hunks[hid].group)
    for hid in hids:
        hunks[hid].group = top[find(hid)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worktree", default=os.environ.get(
        "MK_WORKTREE", os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                    os.path.basename(os.path.dirname(HERE))
                                    + "-linux")))
    ap.add_argument("--base", default="base")
    ap.add_argument("--topic", default="topic")
    ap.add_argument("--explain", type=int, metavar="OLD",
                    help="print where each hunk of old patch OLD went")
    ap.add_argument("map")
    ap.add_argument("branch")
    a = ap.parse_args()
    wt = a.worktree
    commits = git(wt, "rev-list", "--reverse",
                  "%s..%s" % (a.base, a.topic)).decode().split()
    groups = parse_map(a.map)
    where = {}
    for g, (_, olds) in enumerate(groups, 1):
        for old, kind, prefix in olds:
            where.setdefault(old, []).append((g, kind, prefix))
    missing = [k for k in range(1, len(commits) + 1) if k not in where]
    if missing:
        sys.exit("old patches in no new one: %s" % missing)

    def home(old, path):
        """(new patch, folded?) of old patch @old's hunks in @path"""
        for g, kind, prefix in sorted(where[old], key=lambda x: -len(
                x[2] or "")):
            if prefix is None or path == prefix or \
                    path.startswith(prefix.rstrip("/") + "/"):
                return g, kind == "f"
        sys.exit("old patch %d's %s is in no new patch" % (old, path))

    patch_diffs = diffs(wt, commits)
    files = sorted({f for _, f in patch_diffs})
    hunks = []
    woven = {f: weave(wt, a.base, len(commits), f, patch_diffs, hunks)
             for f in files}

    # Each hunk's new patch: its old patch's, or for a fold the latest
    # new patch of the lines it deletes, or else of the line it follows;
    # never before a new patch whose lines it deletes.  Old patch by old
    # patch: what a hunk depends on comes first.  The hunks of a folded
    # patch that move a line within a file (one deletes it, another adds
    # it again) go together, to the later of their new patches.
    by_old = {}
    for hid, h in enumerate(hunks):
        by_old.setdefault(h.old, []).append(hid)
    for old in sorted(by_old):
        for hid in by_old[old]:
            h = hunks[hid]
            g, fold = home(h.old, h.path)
            owners = [hunks[ln.hadd].group for ln in h.gone
                      if ln.hadd is not None]
            if fold:
                near = owners or ([hunks[h.before.hadd].group]
                                  if h.before is not None and
                                  h.before.hadd is not None else [])
                g = max(near) if near else g
            # nor before the one that wrote the line it follows, when it
            # adds indented lines: code inserted into a function (or a
            # structure, a Kconfig entry) goes with the function
            if h.before is not None and h.before.hadd is not None and \
                    h.new and h.new[0].text[:1] in (b"\t", b" "):
                owners.append(hunks[h.before.hadd].group)
            h.group = max([g] + owners)
        moves(hunks, [hid for hid in by_old[old]
                      if home(old, hunks[hid].path)[1]])

    for hid in (range(len(hunks)) if a.explain == 0 else
                by_old.get(a.explain, [])):
        if a.explain == 0 and hunks[hid].group == home(hunks[hid].old,
                                                     hunks[hid].path)[0]:
            continue
        h = hunks[hid]
        print("old %d %s: -%d +%d, after %s: new patch %d (deletes lines of "
              "%s) %s" % (h.old, h.path, len(h.gone), len(h.new),
                          hunks[h.before.hadd].group if h.before is not None
                          and h.before.hadd is not None else "base",
                          h.group, sorted({hunks[ln.hadd].group
                                           for ln in h.gone
                                           if ln.hadd is not None}),
                          (h.new or h.gone or [Line(b"", None)])[0]
                          .text.strip()[:40].decode(errors="replace")))
    print("new patches: %d, from %d old ones" % (len(groups), len(commits)))
    modes = {}
    for line in git(wt, "ls-tree", "-r", a.topic).decode().splitlines():
        meta, path = line.split("\t", 1)
        modes[path] = meta.split()[0]
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(
        git(wt, "rev-parse", "--git-dir").decode().strip(), "recut-index"))
    if not os.path.isabs(env["GIT_INDEX_FILE"]):
        env["GIT_INDEX_FILE"] = os.path.join(wt, env["GIT_INDEX_FILE"])
    name = os.environ.get("MK_AUTHOR_NAME", "Multikernel Team")
    email = os.environ.get("MK_AUTHOR_EMAIL", "team@multikernel.invalid")
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email,
               GIT_AUTHOR_DATE="2000-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2000-01-01T00:00:00Z")

    def g_run(*args, inp=None):
        return subprocess.run(["git", "-C", wt] + list(args), input=inp,
                              env=env, capture_output=True,
                              check=True).stdout

    in_base = set(git(wt, "ls-tree", "-r", "--name-only",
                      a.base).decode().splitlines())
    # The messages, by their subject line
    messages = {}
    msg_dir = os.path.join(HERE, "recut.msgs")
    for name in sorted(os.listdir(msg_dir)) if os.path.isdir(msg_dir) else []:
        text = open(os.path.join(msg_dir, name), "rb").read()
        messages[text.split(b"\n", 1)[0].decode()] = text
    parent = git(wt, "rev-parse", a.base).decode().strip()
    g_run("read-tree", parent)
    tree = None
    def group(hid):
        return 0 if hid is None else hunks[hid].group

    # The new patches that change each file: only those write it again
    touched = {f: {group(ln.hadd) for ln in lines if ln.hadd is not None} |
               {group(ln.hdel) for ln in lines if ln.hdel is not None}
               for f, lines in woven.items()}
    for g, (subject, olds) in enumerate(groups, 1):
        churn = 0
        for f, lines in woven.items():
            if g not in touched[f]:
                continue
            keep = [ln.text for ln in lines if group(ln.hadd) <= g and
                    (ln.hdel is None or group(ln.hdel) > g)]
            churn += sum(1 for ln in lines if group(ln.hadd) == g and
                         ln.hdel is not None and group(ln.hdel) > g)
            # A file is there while it has a line, or as the base and
            # the tip both have it (empty files)
            if not keep and not (f in in_base and f in modes):
                g_run("update-index", "--force-remove", "--", f)
                continue
            # A new C file or header starts with its SPDX line: one
            # that does not lacks what a later new patch adds
            if f not in in_base and f.endswith((".c", ".h", ".S")) and \
                    b"SPDX-License-Identifier" not in keep[0]:
                print("%02d %s: the lines that begin it come later" % (g, f))
            blob = g_run("hash-object", "-w", "--stdin",
                         inp=b"".join(keep)).decode().strip()
            g_run("update-index", "--add", "--cacheinfo",
                  "%s,%s,%s" % (modes.get(f, "100644"), blob, f))
        tree = g_run("write-tree").decode().strip()
        if subject in messages:
            msg = messages[subject]
        else:
            msg = ("%s\n\nFrom old patches %s.\n\nSigned-off-by: %s <%s>\n"
                   % (subject, ", ".join(
                       "%d%s%s" % (o, "f" if k == "f" else "",
                                   ":" + p if p else "")
                       for o, k, p in olds), name, email)).encode()
        parent = g_run("commit-tree", tree, "-p", parent,
                       inp=msg).decode().strip()
        print("%02d %-60s old %s; churn %d" % (
            g, subject[:60], " ".join("%d%s" % (o, "f" if k == "f" else "")
                                      for o, k, _ in olds), churn))
    os.unlink(env["GIT_INDEX_FILE"])
    git(wt, "branch", a.branch, parent)
    same = tree == git(wt, "rev-parse", a.topic + "^{tree}").decode().strip()
    print("tip tree identical" if same else
          "TIP TREE DIFFERS: git diff %s %s" % (a.topic, a.branch))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
