#!/usr/bin/env bash
# The same rows through Floe's Parquet row writer and the official runtime's, each engine in its own JVM,
# alternating (issue 26). Usage: benchmarks/writer-probe/run.sh [files=30] [rowsPerFile=33000] [rounds=4]
# [open=1] [pairs=2]. Needs the classpaths benchmarks/run.sh resolves (run it once first) and Floe compiled
# into $FLOE_BUILD_DIR (default target-bench). Prints one PROBE line per JVM: thread CPU per row, median
# of the rounds after the first.
set -euo pipefail
FILES="${1:-30}"; ROWS="${2:-33000}"; ROUNDS="${3:-4}"; OPEN="${4:-1}"; PAIRS="${5:-2}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
WORK="$ROOT/benchmarks/work"
BUILD_DIR="${FLOE_BUILD_DIR:-target-bench}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
RUNTIME_JAR="${ICEBERG_RUNTIME_JAR:-$HOME/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.1_2.13/1.11.0/iceberg-spark-runtime-4.1_2.13-1.11.0.jar}"
for f in "$WORK/cp-spark.txt" "$BUILD_DIR/launcher/classpath.txt" "$RUNTIME_JAR"; do
  [[ -s "$f" ]] || { echo "Cannot run the writer probe: $f is missing (run benchmarks/run.sh first)" >&2; exit 1; }
done
CP_FLOE="$(cat "$BUILD_DIR/launcher/classpath.txt")"
CP_OFFICIAL="$RUNTIME_JAR:$(cat "$WORK/cp-spark.txt")"
OUT="$WORK/writer-probe"
rm -rf "$OUT" && mkdir -p "$OUT/floe-classes" "$OUT/official-classes"
javac -nowarn -d "$OUT/floe-classes" -cp "$CP_FLOE" "$HERE/src/io/floe/spark/bench/"*.java
javac -nowarn -d "$OUT/official-classes" -cp "$CP_OFFICIAL" "$HERE/src/io/floe/spark/bench/WriterProbe.java"
JVM_FLAGS="$(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' "$ROOT/pom.xml")"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((p = 1; p <= PAIRS; p++)); do
  if ((p % 2 == 1)); then order=(floe official); else order=(official floe); fi
  for e in "${order[@]}"; do
    if [[ "$e" == floe ]]; then cp="$OUT/floe-classes:$CP_FLOE"; else cp="$OUT/official-classes:$CP_OFFICIAL"; fi
    # shellcheck disable=SC2086
    java -Xmx3g $JVM_FLAGS -cp "$cp" io.floe.spark.bench.WriterProbe "$e" "$FILES" "$ROWS" "$ROUNDS" "$OPEN" \
      "$OUT/files-$e" 2>/dev/null | grep '^PROBE'
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# the layout of the last files of each engine: it must be the same
for e in floe official; do
  echo "files written by $e:"
  java -cp "$OUT/floe-classes:$CP_FLOE" io.floe.spark.bench.FooterDump "$OUT/files-$e" 2>/dev/null | grep -v '^kv='
done
