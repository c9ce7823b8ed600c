#!/usr/bin/env bash
# Side-by-side benchmark of Floe, the official iceberg-spark-runtime and Spark's own Parquet reader
# (issue 10). Usage: benchmarks/run.sh [--quick]   (see benchmarks/README.md)
# Environment: BENCH_ROWS (row count override), TPCH_SF (TPC-H scale factor override), PLAN_FILES (file count of
#              the planning table), TYPES_ROWS (rows of each table of the types scenario), BENCH_SCENARIOS (space-separated subset of the scenarios), ROUNDS (default 3),
#              STREAM_EPOCHS_OVERRIDE / STREAM_ROWS (counted epochs / rows per epoch of the streaming scenario),
#              HEAP (default 4g), WARM_RUNS (default 3), TPCH_WARM_RUNS (default 1), TPCH_CBO (set: TPC-H with Spark's
#              cost-based optimizer and compute_table_stats first), FLOE_BUILD_DIR (default target-bench),
#              ICEBERG_RUNTIME_JAR (default: the 1.11.0 jar in ~/.m2), FLOE_JAR (classpath, the default: Floe's classes
#              and its dependencies' jars, as bin/floe-sql runs; runtime: Floe's one shaded runtime jar on Spark's
#              classpath, as the official runtime is measured and as spark-submit --jars users run it).
set -euo pipefail

MODE=full
ROWS=10000000
SF=1
FILES=50000
for arg in "$@"; do
  case "$arg" in
    --quick) MODE=quick; ROWS=1000000; SF=0.1; FILES=5000 ;;
    *) echo "Cannot run benchmarks: unknown argument '$arg' (usage: run.sh [--quick])" >&2; exit 2 ;;
  esac
done
ROWS="${BENCH_ROWS:-$ROWS}"   # overrides for smoke tests
SF="${TPCH_SF:-$SF}"
FILES="${PLAN_FILES:-$FILES}"
# rows of each one-column table of the types scenario
TYPE_ROWS=50000000
[[ "$MODE" == quick ]] && TYPE_ROWS=2000000
TYPE_ROWS="${TYPES_ROWS:-$TYPE_ROWS}"
# the maintenance scenario's table: data files to compact, and the appends that make its history
MAINT_FILES=10000; MAINT_APPENDS=1000
[[ "$MODE" == quick ]] && MAINT_FILES=400 && MAINT_APPENDS=200
# the streaming scenario (only when named in BENCH_SCENARIOS): counted epochs of the sink, rows per epoch
# (full scale: 1M rows in 20 epochs, the sink's throughput; quick: 40 epochs of 1,000 rows, its latency)
STREAM_EPOCHS=20; STREAM_ROWS_DEFAULT=50000
[[ "$MODE" == quick ]] && STREAM_EPOCHS=40 && STREAM_ROWS_DEFAULT=1000
STREAM_EPOCHS="${STREAM_EPOCHS_OVERRIDE:-$STREAM_EPOCHS}"
STREAM_ROWS="${STREAM_ROWS:-$STREAM_ROWS_DEFAULT}"
read -r -a SCENARIOS <<< "${BENCH_SCENARIOS:-fullscan selective aggregate insert insert-fanout planning delete-cow delete-mor update-cow update-mor merge-cow merge-mor maintenance tpch}"
has_scenario() { [[ " ${SCENARIOS[*]} " == *" $1 "* ]]; }

BENCH_DIR="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
WORK="$BENCH_DIR/work"
# the reports of the two standard scales are kept (benchmarks/results); a run at another scale is a smoke
# run, whose report stays in the ignored work folder
RESULTS="$BENCH_DIR/results"
if [[ -n "${BENCH_ROWS:-}${TPCH_SF:-}${PLAN_FILES:-}${TYPES_ROWS:-}${STREAM_EPOCHS_OVERRIDE:-}" ]]; then
  RESULTS="$WORK/results"
fi
ROUNDS="${ROUNDS:-3}"
HEAP="${HEAP:-4g}"
BUILD_DIR="${FLOE_BUILD_DIR:-target-bench}"
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
RUNTIME_JAR="${ICEBERG_RUNTIME_JAR:-$HOME/.m2/repository/org/apache/iceberg/iceberg-spark-runtime-4.1_2.13/1.11.0/iceberg-spark-runtime-4.1_2.13-1.11.0.jar}"
WAREHOUSE="$WORK/warehouse-$MODE-$ROWS"
export SPARK_LOCAL_IP=127.0.0.1

mkdir -p "$WORK" "$RESULTS"
log() { echo "[bench $(date -u +%H:%M:%S)] $*" >&2; }

if [[ ! -f "$RUNTIME_JAR" ]]; then
  log "fetching the official runtime jar"
  mvn -q -B dependency:get -Dartifact=org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.11.0
fi
if ! java -version 2>&1 | grep -q 'version "17'; then
  log "warning: Spark 4.1 is tested here on Java 17; found: $(java -version 2>&1 | head -1)"
fi

# --- classpaths -------------------------------------------------------------------------------
# Spark only (no Iceberg): from a tiny pom that depends on spark-sql alone.
if [[ ! -s "$WORK/cp-spark.txt" || "$BENCH_DIR/spark-only/pom.xml" -nt "$WORK/cp-spark.txt" ]]; then
  log "resolving the Spark classpath"
  (cd "$BENCH_DIR/spark-only" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$WORK/cp-spark.txt")
fi
# Generator: Spark + the TPC-H generator io.trino.tpch:tpch 1.2 (the official runtime jar is added below).
if [[ ! -s "$WORK/cp-tpch.txt" || "$BENCH_DIR/tpch/pom.xml" -nt "$WORK/cp-tpch.txt" ]]; then
  log "resolving the generator classpath (Spark + tpch)"
  (cd "$BENCH_DIR/tpch" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$WORK/cp-tpch.txt")
fi
# Floe: compiled into $BUILD_DIR by launcher/pom.xml, which also writes the classpath a Spark application
# with Floe has (Spark, Floe and its dependencies; no test jar of the project).
log "compiling Floe into $BUILD_DIR"
(cd "$ROOT" && mvn -q -B -f launcher/pom.xml -Dfloe.build.dir="$BUILD_DIR" -Dmaven.test.skip=true compile)
log "compiling the benchmark classes"
rm -rf "$WORK/bench-classes" && mkdir -p "$WORK/bench-classes"
# BenchMain's run path uses Spark only; the generators use the Iceberg API (from the official runtime jar) and
# the tpch jar, which are only on the generator JVM's classpath.
javac -nowarn -d "$WORK/bench-classes" -cp "$RUNTIME_JAR:$(cat "$WORK/cp-tpch.txt")" \
  "$ROOT"/src/test/java/io/floe/spark/bench/BenchMain.java \
  "$ROOT"/src/test/java/io/floe/spark/bench/JvmActivity.java \
  "$ROOT"/src/test/java/io/floe/spark/bench/PlanningTableGenerator.java \
  "$ROOT"/src/test/java/io/floe/spark/bench/MaintenanceScenario.java \
  "$ROOT"/src/test/java/io/floe/spark/bench/StreamingScenario.java \
  "$BENCH_DIR"/tpch/src/io/floe/spark/bench/TpchGenerator.java \
  "$ROOT"/src/test/java/io/floe/spark/bench/TypesBenchmark.java

CP_SPARK="$WORK/bench-classes:$(cat "$WORK/cp-spark.txt")"
CP_OFFICIAL="$WORK/bench-classes:$RUNTIME_JAR:$(cat "$WORK/cp-spark.txt")"
case "${FLOE_JAR:-classpath}" in
  classpath) CP_FLOE="$WORK/bench-classes:$(cat "$BUILD_DIR/launcher/classpath.txt")" ;;
  runtime)
    log "packaging Floe's runtime jar into $BUILD_DIR"
    (cd "$ROOT" && mvn -q -B -Dfloe.build.dir="$BUILD_DIR" -Dmaven.test.skip=true package)
    FLOE_RUNTIME_JAR="$(ls "$BUILD_DIR"/floe-spark-*-runtime.jar)"
    CP_FLOE="$WORK/bench-classes:$FLOE_RUNTIME_JAR:$(cat "$WORK/cp-spark.txt")" ;;
  *) echo "Cannot run benchmarks: FLOE_JAR is '${FLOE_JAR}', not classpath or runtime" >&2; exit 2 ;;
esac
CP_GEN="$WORK/bench-classes:$RUNTIME_JAR:$(cat "$WORK/cp-tpch.txt")"

JVM_FLAGS="$(sed -n 's:.*<spark.jvm.flags>\(.*\)</spark.jvm.flags>.*:\1:p' "$ROOT/pom.xml")"
# MaxHeapFreeRatio=100: the System.gc() that HeapWatch runs before every timed section would otherwise let
# G1 give most of the heap back, and the next section would pay for growing it again.
# shellcheck disable=SC2086
jvm() { # jvm <classpath> <main class> <args...>
  local cp="$1"; shift
  java -Xmx"$HEAP" -XX:MaxHeapFreeRatio=100 $JVM_FLAGS -Dlog4j2.level=warn -Dbench.tpch.queries="$BENCH_DIR/tpch/queries" \
    -Dbench.warm.runs="${WARM_RUNS:-3}" -Dbench.tpch.warm.runs="${TPCH_WARM_RUNS:-1}" \
    -Dbench.maint.files="$MAINT_FILES" -Dbench.maint.appends="$MAINT_APPENDS" \
    -Dbench.stream.epochs="$STREAM_EPOCHS" -Dbench.stream.rows="$STREAM_ROWS" \
    ${BENCH_ANSWERS:+-Dbench.answers="$BENCH_ANSWERS"} ${TPCH_CBO:+-Dbench.tpch.cbo=true} ${BENCH_JVM_OPTS:-} -cp "$cp" "$@"
}
MAIN=io.floe.spark.bench.BenchMain

# --- data -------------------------------------------------------------------------------------
if [[ ! -f "$WAREHOUSE/.rows-$ROWS" ]]; then
  log "generating $ROWS rows into $WAREHOUSE with the official runtime"
  rm -rf "$WAREHOUSE"
  mkdir -p "$WAREHOUSE"
  jvm "$CP_GEN" "$MAIN" generate "$WAREHOUSE" "$ROWS" 2> "$WORK/generate.log" | grep '^GENERATED'
  touch "$WAREHOUSE/.rows-$ROWS"
else
  log "reusing $WAREHOUSE (bench.db.src)"
fi
if has_scenario tpch; then
  if [[ ! -f "$WAREHOUSE/.tpch-$SF" ]]; then
    log "generating TPC-H at scale factor $SF into $WAREHOUSE/tpch with the official runtime"
    rm -rf "$WAREHOUSE/tpch" "$WAREHOUSE"/.tpch-*
    jvm "$CP_GEN" io.floe.spark.bench.TpchGenerator "$WAREHOUSE" "$SF" 2> "$WORK/generate-tpch.log" \
      | grep '^GENERATED'
    touch "$WAREHOUSE/.tpch-$SF"
  else
    log "reusing TPC-H scale factor $SF in $WAREHOUSE/tpch"
  fi
fi
if has_scenario planning; then
  if [[ ! -f "$WAREHOUSE/.plan-$FILES" ]]; then
    log "generating the $FILES-file planning table into $WAREHOUSE/db/plan_files"
    rm -rf "$WAREHOUSE/db/plan_files" "$WAREHOUSE"/.plan-*
    jvm "$CP_GEN" "$MAIN" generate-plan "$WAREHOUSE" "$FILES" 2> "$WORK/generate-plan.log" \
      | grep '^GENERATED'
    touch "$WAREHOUSE/.plan-$FILES"
  else
    log "reusing the $FILES-file planning table in $WAREHOUSE/db/plan_files"
  fi
fi

# the set of per-type tables: bump when TypesBenchmark gains a table (generation keeps the others)
TYPES_SET=2
if has_scenario types; then
  if [[ ! -f "$WAREHOUSE/.types-$TYPE_ROWS-$TYPES_SET" ]]; then
    log "generating the per-type tables ($TYPE_ROWS rows each) into $WAREHOUSE/types with the official runtime"
    rm -f "$WAREHOUSE"/.types-*
    jvm "$CP_GEN" "$MAIN" generate-types "$WAREHOUSE" "$TYPE_ROWS" 2> "$WORK/generate-types.log" \
      | grep '^GENERATED'
    touch "$WAREHOUSE/.types-$TYPE_ROWS-$TYPES_SET"
  else
    log "reusing the per-type tables ($TYPE_ROWS rows each) in $WAREHOUSE/types"
  fi
fi

# --- runs -------------------------------------------------------------------------------------
RAW="$WORK/raw-$MODE.txt"
ANSWERS="$WORK/answers-$MODE"
: > "$RAW"
rm -rf "$ANSWERS"
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
run_engine() { # run_engine <engine> <round>
  local engine="$1" round="$2" cp
  case "$engine" in
    floe) cp="$CP_FLOE" ;; official) cp="$CP_OFFICIAL" ;; parquet) cp="$CP_SPARK" ;;
  esac
  local scen=("${SCENARIOS[@]}")
  if [[ "$engine" == parquet ]]; then
    scen=()
    has_scenario fullscan && scen+=(fullscan)
    has_scenario types && scen+=(types)
    has_scenario streaming && scen+=(streaming)
    has_scenario tpch && scen+=(tpch)
  fi
  # TPC-H gets a JVM of its own, so every engine starts it with the same history: in one JVM the
  # parquet engine came to TPC-H after the full scan alone, the others after five scenarios
  # including a 10M-row INSERT
  local synthetic=() tpch=()
  for s in "${scen[@]}"; do
    if [[ "$s" == tpch ]]; then tpch=(tpch); else synthetic+=("$s"); fi
  done
  if ((${#synthetic[@]})); then
    log "round $round: $engine (${synthetic[*]})"
    BENCH_ANSWERS="$ANSWERS/$engine-r$round" jvm "$cp" "$MAIN" run "$engine" "$WAREHOUSE" "${synthetic[@]}" \
      2> "$WORK/run-$engine-$round.log" | grep '^RESULT' | tee -a "$RAW" >&2
  fi
  if ((${#tpch[@]})); then
    log "round $round: $engine (tpch, own JVM)"
    BENCH_ANSWERS="$ANSWERS/$engine-r$round" jvm "$cp" "$MAIN" run "$engine" "$WAREHOUSE" tpch \
      2> "$WORK/run-$engine-$round-tpch.log" | grep '^RESULT' | tee -a "$RAW" >&2
  fi
}
for ((r = 1; r <= ROUNDS; r++)); do
  # alternate which engine goes first; parquet only runs fullscan and tpch
  if ((r % 2 == 1)); then order=(floe official); else order=(official floe); fi
  if has_scenario fullscan || has_scenario types || has_scenario streaming || has_scenario tpch; then
    order+=(parquet)
  fi
  for e in "${order[@]}"; do run_engine "$e" "$r"; done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- report -----------------------------------------------------------------------------------
STAMP="$(date -u +%Y-%m-%d-%H%M)"
OUT="$RESULTS/$STAMP-$MODE.md"
{
  echo "# Benchmark results: $MODE ($ROWS rows, TPC-H SF $SF, planning table $FILES files), $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo
  echo "- Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/^Mem:/ {print $2}') GB memory"
  echo "- Java: $(java -version 2>&1 | head -1)"
  echo "- Spark local[2], driver heap $HEAP, $ROUNDS rounds, one JVM per engine per round (alternating), TPC-H in a JVM of its own"
  echo "- Load average (1/5/15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER"
  echo "- Official runtime: $(basename "$RUNTIME_JAR")"
  echo "- Floe from: ${FLOE_JAR:-classpath}$([[ "${FLOE_JAR:-classpath}" == runtime ]] && echo " ($(basename "$FLOE_RUNTIME_JAR"))")"
  echo "- Scenarios: ${SCENARIOS[*]}"
  if [[ -n "${TPCH_CBO:-}" ]]; then echo "- TPC-H with spark.sql.cbo.enabled=true, compute_table_stats on every table first (TPCH_CBO)"; fi
  echo
  python3 "$BENCH_DIR/report.py" "$RAW" "$ANSWERS"
  echo
  echo "Raw runs (scenario engine seconds answer):"
  echo
  echo '```'
  sed 's/^RESULT //' "$RAW"
  echo '```'
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
python3 "$BENCH_DIR/report.py" "$RAW" "$ANSWERS"
log "written $OUT"
