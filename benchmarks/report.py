"""Turns the RESULT lines of benchmarks/run.sh into Markdown tables of medians and ratios.

Usage: report.py <raw RESULT file> [<answers folder>]

RESULT line: RESULT <scenario> <engine> <seconds> <answer> [files=<n|->] [heapLiveMB=<n|->] [heapPeakMB=<n|->] [cpuS=<s>]
(cpuS: CPU seconds of the whole JVM during the run; a busy machine disturbs it less than wall time.)
The answers folder holds <engine>-r<round>/qNN.txt (one TPC-H answer row a line, values separated by '|');
when given, TPC-H answers are compared row by row across engines and runs, numbers with a relative
tolerance of 1e-9 (engines sum doubles in different orders), everything else exactly.
"""
import math
import os
import re
import statistics
import sys
from collections import defaultdict

ENGINES = ["floe", "official", "parquet"]
SCENARIOS = ["fullscan", "fullscan-warm", "selective", "selective-warm", "aggregate",
             "aggregate-warm", "insert", "insert-fanout", "planning", "tpch-total", "tpch-total-warm"]
# row-level scenarios, each followed by the full scan of the table it changed
for _op in ["delete", "update", "merge"]:
    for _mode in ["cow", "mor"]:
        SCENARIOS += [f"{_op}-{_mode}", f"scan-after-{_op}-{_mode}"]
# the maintenance scenario: compaction, then expiry of the compacted table's history
SCENARIOS += ["rewrite-data-files", "expire-snapshots"]
# the streaming scenario: median seconds of one sink epoch (and of its addBatch), the source's whole run
SCENARIOS += ["stream-sink", "stream-sink-addbatch", "stream-source"]
# the floor of any sink's epoch (Spark's noop sink, run by the parquet engine only)
SCENARIOS += ["stream-sink-noop", "stream-sink-noop-addbatch"]
REL_TOL = 1e-9
# the cores of every engine's session (run.sh starts Spark as local[2]): ns per row per core = wall
# seconds x cores / rows
SPARK_CORES = 2

times = defaultdict(list)
answers = defaultdict(set)
extras = defaultdict(lambda: defaultdict(list))  # (scenario, engine) -> key -> values
with open(sys.argv[1]) as raw:
    for line in raw:
        parts = line.split()
        if len(parts) < 4 or parts[0] != "RESULT":
            continue
        scenario, engine, seconds = parts[1], parts[2], float(parts[3])
        times[(scenario, engine)].append(seconds)
        answers[(scenario, engine)].add(parts[4] if len(parts) > 4 else "")
        for extra in parts[5:]:
            key, _, value = extra.partition("=")
            extras[(scenario, engine)][key].append(value)
answers_dir = sys.argv[2] if len(sys.argv) > 2 else None


def median_of(scenario, engine, key):
    values = [float(v) for v in extras[(scenario, engine)].get(key, []) if v not in ("", "-")]
    return f"{statistics.median(values):.0f}" if values else "-"


def cpu_ratio(scenario, num, den):
    """Floe's median process CPU over another engine's, or "" when either has none."""
    a = [float(v) for v in extras[(scenario, num)].get("cpuS", []) if v not in ("", "-")]
    b = [float(v) for v in extras[(scenario, den)].get("cpuS", []) if v not in ("", "-")]
    if not a or not b or statistics.median(b) == 0:
        return ""
    return f"{statistics.median(a) / statistics.median(b):.2f}"


def median_cpu(scenario, engine):
    values = [float(v) for v in extras[(scenario, engine)].get("cpuS", []) if v not in ("", "-")]
    return f"{statistics.median(values):.2f}" if values else "-"


def files_written(scenario, engine):
    values = sorted(set(v for v in extras[(scenario, engine)].get("files", []) if v != "-"))
    return "/".join(values) if values else "-"


def same_value(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return math.isclose(x, y, rel_tol=REL_TOL, abs_tol=1e-12)


def compare_answer_files(query):
    """'yes', 'NO (...)' or None when no answer files exist for the query."""
    if not answers_dir or not os.path.isdir(answers_dir):
        return None
    runs = sorted(d for d in os.listdir(answers_dir)
                  if os.path.isfile(os.path.join(answers_dir, d, query + ".txt")))
    if not runs:
        return None
    # the first official run is the reference when there is one
    runs.sort(key=lambda d: (not d.startswith("official"), d))
    def rows(run):
        with open(os.path.join(answers_dir, run, query + ".txt")) as f:
            return [line.rstrip("\n").split("|") for line in f]
    reference = rows(runs[0])
    for run in runs[1:]:
        other = rows(run)
        if len(other) != len(reference):
            return f"NO ({run}: {len(other)} rows, {runs[0]}: {len(reference)})"
        for i, (a, b) in enumerate(zip(reference, other)):
            if len(a) != len(b) or not all(same_value(x, y) for x, y in zip(a, b)):
                return f"NO ({run} row {i + 1}: {'|'.join(b)} vs {'|'.join(a)})"
    return "yes"


def agreement(scenario):
    if scenario.startswith("tpch-q"):
        by_files = compare_answer_files(scenario[len("tpch-"):])
        if by_files is not None:
            return by_files
    if scenario == "tpch-total":
        queries = sorted({s for (s, _) in times if re.fullmatch(r"tpch-q\d\d", s)})
        bad = [q[len("tpch-"):] for q in queries if agreement(q) != "yes"]
        return "yes" if queries and not bad else f"NO ({', '.join(bad)})"
    all_answers = set().union(*(a for (s, e), a in answers.items() if s == scenario))
    return "yes" if len(all_answers) == 1 else f"NO ({len(all_answers)} distinct)"


if any(s in SCENARIOS for (s, _) in times):
    print("| scenario | engine | runs | median s | min-max s | Floe/official | Floe/Spark-Parquet | median CPU s "
          "| CPU Floe/official | files written | heap live MB | heap peak MB | answers agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for scenario in SCENARIOS:
    med = {e: statistics.median(t) for (s, e), t in times.items() if s == scenario}
    if not med:
        continue
    agree = agreement(scenario)
    for engine in ENGINES:
        if engine not in med:
            continue
        vs_official = vs_parquet = ""
        if engine == "floe" and "official" in med:
            vs_official = f"{med['floe'] / med['official']:.2f}"
        if engine == "floe" and "parquet" in med:
            vs_parquet = f"{med['floe'] / med['parquet']:.2f}"
        cpu_vs = cpu_ratio(scenario, "floe", "official") if engine == "floe" else ""
        runs = times[(scenario, engine)]
        print(f"| {scenario} | {engine} | {len(runs)} | {med[engine]:.2f} "
              f"| {min(runs):.2f}-{max(runs):.2f} | {vs_official} | {vs_parquet} | {median_cpu(scenario, engine)} | {cpu_vs} "
              f"| {files_written(scenario, engine)} "
              f"| {median_of(scenario, engine, 'heapLiveMB')} "
              f"| {median_of(scenario, engine, 'heapPeakMB')} | {agree} |")

queries = sorted({s for (s, _) in times if re.fullmatch(r"tpch-q\d\d", s)})
if queries:
    print()
    print("TPC-H per query (median seconds; heap: median live / peak MB):")
    print()
    print("| query | floe s | official s | Spark-Parquet s | Floe/official | Floe/Spark-Parquet "
          "| CPU Floe/official | warm Floe/official | warm Floe/Spark-Parquet | floe heap "
          "| official heap | answers agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for q in queries + ["tpch-total"]:
        med = {e: statistics.median(times[(q, e)]) for e in ENGINES if times[(q, e)]}
        ratio = f"{med['floe'] / med['official']:.2f}" if "floe" in med and med.get("official") else ""
        vs_pq = f"{med['floe'] / med['parquet']:.2f}" if "floe" in med and med.get("parquet") else ""
        cells = [f"{med[e]:.2f}" if e in med else "-" for e in ENGINES]
        heaps = [f"{median_of(q, e, 'heapLiveMB')} / {median_of(q, e, 'heapPeakMB')}"
                 for e in ("floe", "official")]
        warm = {e: statistics.median(times[(q + "-warm", e)]) for e in ENGINES
                if times[(q + "-warm", e)]}
        warm_ratio = (f"{warm['floe'] / warm['official']:.2f}"
                      if "floe" in warm and warm.get("official") else "")
        warm_pq = (f"{warm['floe'] / warm['parquet']:.2f}"
                   if "floe" in warm and warm.get("parquet") else "")
        name = q[len("tpch-"):] if q != "tpch-total" else "**total**"
        print(f"| {name} | {cells[0]} | {cells[1]} | {cells[2]} | {ratio} | {vs_pq} "
              f"| {cpu_ratio(q, 'floe', 'official')} | {warm_ratio} | {warm_pq} "
              f"| {heaps[0]} | {heaps[1]} "
              f"| {agreement(q)} |")

# the per-type scan scenario (TypesBenchmark): one row per column type
type_names = []
for (s, _) in list(times):
    if s.startswith("types-") and s[len("types-"):] not in type_names:
        type_names.append(s[len("types-"):])
if type_names:
    print()
    print("Per-type full scans, `SELECT count(*), <aggregate>` over a one-column table: `sum(c)` (an "
          "exact sum for bigint, float, double, date, timestamp, boolean), `count(c), max(length(c))` for "
          "strings and binary (median seconds over every timed run; ns/row/core = seconds x "
          f"{SPARK_CORES} cores / rows; physical limits: raw = reading the files' bytes in one thread, "
          "unzstd = reading them and decompressing every page in two threads):")
    print()
    print("| type | rows | MB on disk | MB decompressed | floe s | official s | Spark-Parquet s | raw read s "
          "| unzstd s | Floe/official | Floe/Spark-Parquet | Floe/unzstd | CPU Floe/official "
          "| floe ns/row/core | official ns/row/core | Spark-Parquet ns/row/core | answers agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in type_names:
        scenario = "types-" + name
        med = {e: statistics.median(times[(scenario, e)]) for e in ENGINES + ["raw", "unzstd"]
               if (scenario, e) in times}
        engine_answers = set().union(*(answers[(scenario, e)] for e in ENGINES
                                       if (scenario, e) in answers))
        rows = next(iter(engine_answers)).split(",")[0] if engine_answers else ""
        raw_bytes = [a for a in answers.get((scenario, "raw"), set())]
        mb = f"{int(raw_bytes[0].split('=')[1]) / 1e6:.1f}" if raw_bytes else "-"
        plain_bytes = [a for a in answers.get((scenario, "unzstd"), set())]
        plain_mb = f"{int(plain_bytes[0].split('=')[1]) / 1e6:.1f}" if plain_bytes else "-"
        cells = [f"{med[e]:.3f}" if e in med else "-" for e in ENGINES + ["raw", "unzstd"]]
        vs_limit = f"{med['floe'] / med['unzstd']:.1f}" if "floe" in med and med.get("unzstd") else ""
        ratio = f"{med['floe'] / med['official']:.2f}" if "floe" in med and med.get("official") else ""
        vs_pq = f"{med['floe'] / med['parquet']:.2f}" if "floe" in med and med.get("parquet") else ""
        speeds = [f"{med[e] * SPARK_CORES * 1e9 / int(rows):.1f}" if e in med and rows.isdigit()
                  and int(rows) else "-" for e in ENGINES]
        agree = "yes" if len(engine_answers) == 1 else f"NO ({len(engine_answers)} distinct)"
        print(f"| {name} | {rows} | {mb} | {plain_mb} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} "
              f"| {cells[4]} | {ratio} | {vs_pq} | {vs_limit} | {cpu_ratio(scenario, 'floe', 'official')} "
              f"| {speeds[0]} | {speeds[1]} | {speeds[2]} | {agree} |")
