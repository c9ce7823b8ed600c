"""Turns the RESULT lines of benchmarks/run.sh into one Markdown table of medians and ratios."""
import statistics
import sys
from collections import defaultdict

times = defaultdict(list)
answers = defaultdict(set)
with open(sys.argv[1]) as raw:
    for line in raw:
        parts = line.split()
        if len(parts) < 4 or parts[0] != "RESULT":
            continue
        scenario, engine, seconds = parts[1], parts[2], float(parts[3])
        times[(scenario, engine)].append(seconds)
        answers[(scenario, engine)].add(parts[4] if len(parts) > 4 else "")

order = ["fullscan", "selective", "aggregate", "insert"]
print("| scenario | engine | runs | median s | Floe/official | Floe/Spark-Parquet | answers agree |")
print("|---|---|---|---|---|---|---|")
for scenario in order:
    med = {e: statistics.median(t) for (s, e), t in times.items() if s == scenario}
    all_answers = set().union(*(a for (s, e), a in answers.items() if s == scenario)) if med else set()
    agree = "yes" if len(all_answers) == 1 else f"NO ({len(all_answers)} distinct)"
    for engine in ["floe", "official", "parquet"]:
        if engine not in med:
            continue
        vs_official = vs_parquet = ""
        if engine == "floe" and "official" in med:
            vs_official = f"{med['floe'] / med['official']:.2f}"
        if engine == "floe" and "parquet" in med:
            vs_parquet = f"{med['floe'] / med['parquet']:.2f}"
        print(f"| {scenario} | {engine} | {len(times[(scenario, engine)])} | {med[engine]:.2f} "
              f"| {vs_official} | {vs_parquet} | {agree} |")
