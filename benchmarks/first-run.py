#!/usr/bin/env python3
"""What each benchmark JVM did in its timed sections (issue 31: the first run of a query in a fresh JVM).

Usage: first-run.py <folder> [scenario]

<folder> holds the JVMs' standard error logs (benchmarks/work/run-*.log, copied or linked) with the
ACTIVITY lines that -Dbench.activity=true prints, and, when the JVMs ran with
  -Xlog:class+load=info:file=<folder>/cl-%p.log:uptime
  -Xlog:jit+compilation=debug:file=<folder>/jit-%p.log:uptime
their class-loading and JIT logs. For every section (of the given scenario, default all) it prints
the HotSpot counters of the ACTIVITY line, and the classes loaded and methods compiled in the
section by library (Floe, Iceberg, Parquet, Arrow, ...; a relocated class counts as its library).
"""
import collections
import glob
import os
import re
import sys

GROUPS = [
    ("floe", ("io.floe.",)),
    ("iceberg", ("org.apache.iceberg.",)),
    ("parquet", ("org.apache.parquet.", "shaded.parquet.")),
    ("arrow", ("org.apache.arrow.",)),
    ("avro", ("org.apache.avro.",)),
    ("orc", ("org.apache.orc.",)),
    ("codegen", ("org.apache.spark.sql.catalyst.expressions.GeneratedClass",)),
    ("spark", ("org.apache.spark.",)),
    ("scala", ("scala.",)),
    ("hadoop", ("org.apache.hadoop.",)),
    ("jdk", ("java.", "javax.", "jdk.", "sun.", "com.sun.")),
]
SHADED = ("org.apache.iceberg.shaded.", "io.floe.shaded.")
LINE = re.compile(r"^\[(\d+\.\d+)s\](?:\[[^\]]*\])*\s+(.*)$")
METHOD = re.compile(r"(\S+)::\S+")


def group(name):
    for prefix in SHADED:
        if name.startswith(prefix):
            name = name[len(prefix):]
    for label, prefixes in GROUPS:
        if name.startswith(prefixes):
            return label
    return "other"


def timed(path):
    """(uptime ms, message) of every line of an -Xlog file with the uptime decorator."""
    if not os.path.exists(path):
        return []
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out.append((float(m.group(1)) * 1000, m.group(2)))
    return out


def by_group(entries, start, end, name_of):
    counts = collections.Counter()
    for ms, message in entries:
        if start <= ms <= end:
            name = name_of(message)
            if name:
                counts[group(name)] += 1
    return counts


def class_name(message):
    return message.split()[0] if message else None


def method_class(message):
    m = METHOD.search(message)
    return m.group(1) if m else None


def main():
    folder = sys.argv[1]
    wanted = sys.argv[2] if len(sys.argv) > 2 else None
    labels = [g[0] for g in GROUPS] + ["other"]
    for log in sorted(glob.glob(os.path.join(folder, "*.log"))):
        if os.path.basename(log).startswith(("cl-", "jit-")):
            continue
        with open(log, errors="replace") as f:
            lines = [l for l in f if l.startswith("ACTIVITY ")]
        for line in lines:
            parts = line.split()
            scenario, engine = parts[1], parts[2]
            if wanted and scenario != wanted:
                continue
            fields = dict(p.split("=", 1) for p in parts[3:] if "=" in p)
            print(f"{os.path.basename(log)} {scenario} {engine}: "
                  + " ".join(f"{k}={v}" for k, v in fields.items()
                             if k not in ("pid", "startUptimeMs", "endUptimeMs", "startMillis", "endMillis")))
            start, end = float(fields["startUptimeMs"]), float(fields["endUptimeMs"])
            pid = fields["pid"]
            for kind, path, name_of in (
                ("classes", f"cl-{pid}.log", class_name),
                ("compiles", f"jit-{pid}.log", method_class),
            ):
                counts = by_group(timed(os.path.join(folder, path)), start, end, name_of)
                if counts:
                    total = sum(counts.values())
                    print(f"    {kind} {total}: "
                          + " ".join(f"{l}={counts[l]}" for l in labels if counts[l]))


if __name__ == "__main__":
    main()
