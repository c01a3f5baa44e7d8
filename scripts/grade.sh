#!/usr/bin/env bash
# The grader of the workbook's exercises (architecture §10, docs/pages/instructor.md, student.md).
# `./workbook grade ...` calls this script.
#
#   grade.sh chNN [--submission DIR | --solutions] [--out DIR] [--thresholds FILE] [--seed N]
#       Builds chapter chNN's exercise (from exercises/ by default, from a student's DIR, or from
#       solutions/), runs the graded tests on the GPU, prints the rubric and writes results.json
#       (Gradescope) and junit.xml into the output folder (default build-grade/results/<chapter>).
#       DIR holds <chapter>/transpose.cu (a copy of exercises/) or a single transpose.cu.
#       The sanitizer classes run the submission under compute-sanitizer (memcheck, racecheck,
#       synccheck, initcheck); their logs land in the output folder too. Without compute-sanitizer
#       those classes read "NOT RUN" and score 0.
#   grade.sh chNN --class DIR [--out DIR] [--thresholds FILE] [--seed N]
#       Grades every student of DIR (a folder or a single .cu file each), each in a process of its
#       own with a time limit (WB_GRADE_TIMEOUT seconds, default 120), into OUT/<student>/ and one
#       CSV, OUT/class.csv (default OUT: build-grade/results/<chapter>-class). scripts/grade-class.sh.
#   grade.sh chNN --exercise E [--submission DIR | --solutions] [--out DIR] [--thresholds FILE] [--seed N]
#       The same rubric for one of the chapter's op exercises (E: gemv_batched in ch01; syrk,
#       separable in ch02; gbmv, spmv in ch03; cg_jacobi, spmv_workspace, separable_padded in ch04;
#       syrk_regblock, cg_graph in ch05): correctness per shape class of E (its edge classes), the
#       four sanitizer classes, speed against E's reference solution. DIR holds <chapter>/E.cu (a
#       copy of exercises/) or a single E.cu. Output folder default build-grade/results/<chapter>-E;
#       with --class DIR, every student's E.cu as for the transpose track (<chapter>-E-class);
#       build folder <WB_GRADE_BUILD>-ops (the op runner is built beside the tests: Catch2 needed).
#   grade.sh --calibrate [--exercise all] [--thresholds FILE]
#       Times the reference solutions on this GPU and writes the performance thresholds (speeds
#       relative to the reference, default exercises/grader/thresholds.txt) that grading reads.
#       With --exercise all: the op exercises' solutions, into the same file's 'exercise' lines.
#
# Environment: WB_GRADE_BUILD (build folder, default <repo>/build-grade), CMAKE_PREFIX_PATH,
# WB_SEED (input seed), WB_COMPUTE_SANITIZER (its path, when not on PATH nor in the CUDA
# toolkit's bin/). Exit: 0 graded (whatever the score), 1 submission did not compile,
# 2 usage or grader failure, 77 no GPU.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
chapters=(ch01_global ch02_shared ch03_pattern ch04_access ch05_unrolled)

usage() { sed -n '2,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
die() { echo "grade: $*" >&2; exit 2; }

chapter="" from="exercises" out="" calibrate=0 seed="${WB_SEED:-}" class="" exercise=""
# The op exercises and their chapters (grading_op.cpp registers the same).
declare -A exercise_chapter=([gemv_batched]=ch01_global [syrk]=ch02_shared [separable]=ch02_shared [gbmv]=ch03_pattern
                            [spmv]=ch03_pattern [cg_jacobi]=ch04_access [syrk_regblock]=ch05_unrolled
                            [spmv_workspace]=ch04_access [separable_padded]=ch04_access
                            [cg_graph]=ch05_unrolled)
thresholds="$root/exercises/grader/thresholds.txt"
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage 0 ;;
    --calibrate) calibrate=1 ;;
    --solutions) from="solutions" ;;
    --submission) [ $# -ge 2 ] || die "--submission needs a folder"; from=$(cd "$2" 2>/dev/null && pwd) || die "--submission: no folder $2"; shift ;;
    --exercise) [ $# -ge 2 ] || die "--exercise needs a name (${!exercise_chapter[*]})"; exercise=$2; shift ;;
    --class) [ $# -ge 2 ] || die "--class needs a folder"; class=$2; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift ;;
    --thresholds) [ $# -ge 2 ] || die "--thresholds needs a file"; thresholds=$2; shift ;;
    --seed) [ $# -ge 2 ] || die "--seed needs a number"; seed=$2; shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$chapter" ] || die "one chapter at a time (got $chapter and $1)"; chapter=$1 ;;
  esac
  shift
done

# ch3 | ch03 | 3 | ch03_pattern -> ch03_pattern
resolve_chapter() {
  local name=$1 n
  n=${name#ch}; n=${n%%_*}
  [[ "$n" =~ ^[0-9]{1,2}$ ]] || return 1
  for ch in "${chapters[@]}"; do
    if [ "$((10#${ch:2:2}))" -eq "$((10#$n))" ] && { [ "$name" = "${name%%_*}" ] || [ "$name" = "$ch" ]; }; then
      echo "$ch"; return 0
    fi
  done
  return 1
}

bd=${WB_GRADE_BUILD:-$root/build-grade}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
[ -f "$bd/CMakeCache.txt" ] && generator=()  # keep the generator the folder was made with
jobs=$(nproc 2>/dev/null || echo 2)

configure() {  # configure <exercises-from> <chapter>
  cmake -S "$root" -B "$bd" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWB_BUILD_TESTS=OFF \
        -DWB_EXERCISES_FROM="$1" -DWB_GRADE_ONLY="$2" ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH="$CMAKE_PREFIX_PATH"} \
        > "$bd.configure.log" 2>&1 || { cat "$bd.configure.log" >&2; die "cmake configure failed (log above)"; }
}

mkdir -p "$(dirname "$bd")"

if [ -n "$exercise" ] && [ "$exercise" != all ] && [ -z "${exercise_chapter[$exercise]:-}" ]; then
  die "--exercise ($exercise) must be one of: ${!exercise_chapter[*]}"
fi
[ "$exercise" = all ] && [ "$calibrate" = 0 ] && die "--exercise all goes with --calibrate only"

# The op runner and its checks live beside the tests (tests/grading): its own build folder, tests on.
configure_ops() {  # configure_ops <exercises-from>
  cmake -S "$root" -B "$bd-ops" "${ops_generator[@]}" -DCMAKE_BUILD_TYPE=Release -DWB_BUILD_TESTS=ON \
        -DWB_EXERCISES_FROM="$1" -DWB_GRADE_ONLY= ${CMAKE_PREFIX_PATH:+-DCMAKE_PREFIX_PATH="$CMAKE_PREFIX_PATH"} \
        > "$bd-ops.configure.log" 2>&1 || { cat "$bd-ops.configure.log" >&2; die "cmake configure failed (log above)"; }
}
ops_generator=()
command -v ninja >/dev/null 2>&1 && ops_generator=(-G Ninja)
[ -f "$bd-ops/CMakeCache.txt" ] && ops_generator=()

if [ "$calibrate" = 1 ]; then
  [ -z "$chapter" ] || die "--calibrate takes no chapter"
  [ -d "$root/solutions" ] || die "--calibrate needs solutions/ (the reference solutions)"
  if [ -n "$exercise" ]; then
    [ "$exercise" = all ] || die "--calibrate --exercise takes 'all' (every op exercise's solution)"
    configure_ops solutions
    cmake --build "$bd-ops" --target wb_grade_op -j "$jobs" > "$bd-ops.build.log" 2>&1 || { tail -50 "$bd-ops.build.log" >&2; die "build failed"; }
    set +e
    "$bd-ops/bin/wb_grade_op" calibrate --thresholds "$thresholds"
    rc=$?
    set -e
    [ $rc -eq 77 ] && { echo "grade: no CUDA device here: nothing calibrated" >&2; exit 77; }
    exit $rc
  fi
  configure solutions ch01_global
  cmake --build "$bd" --target wb_grade_run -j "$jobs" > "$bd.build.log" 2>&1 || { tail -50 "$bd.build.log" >&2; die "build failed"; }
  out=${out:-$bd/results/calibration}
  mkdir -p "$out"
  set +e
  "$bd/bin/wb_grade_run" calibrate --calibration "$out/calibration.txt" --thresholds "$thresholds"
  rc=$?
  set -e
  [ $rc -eq 77 ] && { echo "grade: no CUDA device here: nothing calibrated" >&2; exit 77; }
  exit $rc
fi

[ -n "$chapter" ] || usage 2
full=$(resolve_chapter "$chapter") || die "chapter ($chapter) must be one of ${chapters[*]} (or ch01..ch05, 1..5)"

if [ -n "$exercise" ]; then
  [ "${exercise_chapter[$exercise]}" = "$full" ] || die "--exercise $exercise belongs to ${exercise_chapter[$exercise]}, not $full"
  if [ -n "$class" ]; then
    [ "$from" = exercises ] || die "--class grades the students' folders: no --submission or --solutions with it"
    if [ -z "${WB_GRADE_ONE:-}" ]; then  # the scorer and the common code once, outside the time limits
      echo "grade: preparing the grade build ($bd-ops)"
      configure_ops solutions
      cmake --build "$bd-ops" --target wb_grade_score wb_grade_op -j "$jobs" > "$bd-ops.build.log" 2>&1 || { tail -50 "$bd-ops.build.log" >&2; die "the grader failed to build"; }
    fi
    WB_GRADE_FILE="$exercise.cu" WB_GRADE_EXERCISE="$exercise" WB_GRADE_SCORE="${WB_GRADE_SCORE:-$bd-ops/bin/wb_grade_score}" \
      exec bash "$root/scripts/grade-class.sh" "$full" "$class" "${out:-$bd/results/$full-$exercise-class}" \
      --exercise "$exercise" --thresholds "$thresholds" ${seed:+--seed "$seed"}
  fi
  out=${out:-$bd/results/$full-$exercise}
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  rm -f "$out/results.json" "$out/junit.xml" "$out/record.txt" "$out/items.tsv"
  if [ "$from" != exercises ] && [ "$from" != solutions ] && [ ! -f "$from/$full/$exercise.cu" ]; then
    [ -f "$from/$exercise.cu" ] || die "--submission: no $from/$full/$exercise.cu nor $from/$exercise.cu"
    flat="$out/submission"  # a flat E.cu: graded from a copy laid out as exercises/
    rm -rf "$flat" && mkdir -p "$flat/$full" && cp "$from/$exercise.cu" "$flat/$full/"
    from=$flat
  fi
  echo "grade: $full $exercise from $from (build folder $bd-ops)"
  configure_ops "$from"
  cmake --build "$bd-ops" --target wb_grade_score -j "$jobs" > "$bd-ops.build.log" 2>&1 || { tail -50 "$bd-ops.build.log" >&2; die "the scorer failed to build"; }
  if ! cmake --build "$bd-ops" --target wb_grade_op -j "$jobs" > "$out/build.log" 2>&1; then
    echo "grade: the submission did not compile (compiler output in $out/build.log)" >&2
    "$bd-ops/bin/wb_grade_score" build-failed --chapter "$full" --exercise "$exercise" --log "$out/build.log" --out "$out"
    exit 1
  fi
  set +e
  timeout 900 "$bd-ops/bin/wb_grade_op" run --exercise "$exercise" --variant sub --record "$out/record.txt" ${seed:+--seed "$seed"}
  rc=$?
  set -e
  if [ $rc -eq 77 ]; then echo "grade: no CUDA device here: nothing graded (exit 77)" >&2; exit 77; fi
  if [ $rc -ne 0 ]; then echo "grade: the runner stopped with exit $rc; scoring what it recorded" >&2; fi
  [ -s "$out/record.txt" ] || die "the runner recorded nothing"
  exec "$bd-ops/bin/wb_grade_score" score-op --record "$out/record.txt" --thresholds "$thresholds" --out "$out"
fi

if [ -n "$class" ]; then
  [ "$from" = exercises ] || die "--class grades the students' folders: no --submission or --solutions with it"
  if [ -z "${WB_GRADE_ONE:-}" ]; then
    # Build the scorer, the common library and the references once, outside the students' time
    # limits: each student's run then compiles only that student's file.
    echo "grade: preparing the grade build ($bd)"
    configure solutions "$full"
    cmake --build "$bd" --target wb_grade_score wb_grade_run -j "$jobs" > "$bd.build.log" 2>&1 || { tail -50 "$bd.build.log" >&2; die "the grader failed to build"; }
  fi
  exec bash "$root/scripts/grade-class.sh" "$full" "$class" "${out:-$bd/results/$full-class}" \
       --thresholds "$thresholds" ${seed:+--seed "$seed"}
fi
out=${out:-$bd/results/$full}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/results.json" "$out/junit.xml" "$out/record.txt"

echo "grade: $full from $from (build folder $bd)"
configure "$from" "$full"
cmake --build "$bd" --target wb_grade_score -j "$jobs" > "$bd.build.log" 2>&1 || { tail -50 "$bd.build.log" >&2; die "the scorer failed to build"; }
if ! cmake --build "$bd" --target wb_grade_run -j "$jobs" > "$out/build.log" 2>&1; then
  echo "grade: the submission did not compile (compiler output in $out/build.log)" >&2
  "$bd/bin/wb_grade_score" build-failed --chapter "$full" --log "$out/build.log" --out "$out"
  exit 1
fi

# In a class (grade-class.sh) the whole run already sits in a process group under a time limit;
# --foreground keeps the runner in that group so that limit reaches it and its sanitizer children.
tflag=()
[ -n "${WB_GRADE_CLASS_CHILD:-}" ] && tflag=(--foreground)
set +e
timeout "${tflag[@]}" 900 "$bd/bin/wb_grade_run" run --variant "sub_$full" --record "$out/record.txt" ${seed:+--seed "$seed"}
rc=$?
set -e
if [ $rc -eq 77 ]; then echo "grade: no CUDA device here: nothing graded (exit 77)" >&2; exit 77; fi
if [ $rc -ne 0 ]; then echo "grade: the runner stopped with exit $rc; scoring what it recorded" >&2; fi
[ -s "$out/record.txt" ] || die "the runner recorded nothing"
"$bd/bin/wb_grade_score" score --record "$out/record.txt" --thresholds "$thresholds" --out "$out"
