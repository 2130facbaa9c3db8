#!/usr/bin/env bash
# debian_binaries: programs that Debian built against its own MPICH (libmpich12) run on mm
# unchanged, through LD_LIBRARY_PATH=$MM_PREFIX/lib: the install provides Debian's library
# names (libmpich.so.12, libmpichfort.so.12, libmpi.so.12, ...).
#
#   - NetPIPE (netpipe-mpich2: /usr/bin/NPmpich2, a C program linked with libmpich.so.12)
#     in integrity mode, messages up to 1 MiB, on 2 processes: it must finish with
#     "Integrity check passed", and the method report must show the pair talking shm.
#   - the BLACS tester of ScaLAPACK (scalapack-mpi-test: xFbtest, a Fortran 77 program
#     linked with libscalapack-mpich, libmpichfort.so.12 and libmpich.so.12) on $NP
#     processes (default 4), with its input cut down to the integer and double precision
#     tests: every summary line must report 0 FAILED.
# ldd must resolve each MPI library of both programs to $MM_PREFIX/lib.
#
# The packages are installed with apt-get when missing. Run by maint/run-tests with
# MM_PREFIX, MM_TEST_SRC and MM_TEST_BIN set.
set -u
np=${NP:-4}
errors=0
err() { echo "ERROR: $*"; errors=$((errors + 1)); }

missing=()
for p in netpipe-mpich2 scalapack-mpi-test; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" ||
      { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
        apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}"; }; } > apt.log 2>&1 ||
        { tail -20 apt.log; echo " Found 1 errors: apt-get install ${missing[*]} failed"; exit 1; }
fi

lib=$(cd "$MM_PREFIX/lib" && pwd -P)
export LD_LIBRARY_PATH=$MM_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# A sanitized install (MM_SANITIZE=address,...) needs ASan's runtime first in a program's
# library list, which Debian's programs, not linked with it, cannot give: the processes get
# it preloaded.
preload=()
asan_rt=$(ldd "$MM_PREFIX/lib/libmpich.so.12" | awk '/libasan/ { print $3 }')
[ -z "$asan_rt" ] || preload=(-genv LD_PRELOAD "$asan_rt")

# Each libmpich*/libmpi* that PROG needs must come from our lib directory.
check_ldd() {    # PROG
    local out line name path n=0
    out=$(ldd "$1" 2>&1) || { err "ldd $1 failed: $out"; return; }
    while read -r line; do
        name=${line%% *}
        case $name in libmpi*.so*) ;; *) continue ;; esac
        n=$((n + 1))
        path=$(sed -n 's/.*=> \([^ ]*\) .*/\1/p' <<< "$line")
        if [ -z "$path" ] || [ "$(cd "$(dirname "$path")" 2>/dev/null && pwd -P)" != "$lib" ]; then
            err "ldd $1: $name resolves to '${path:-nothing}', not to $MM_PREFIX/lib"
        else
            echo "ldd $(basename "$1"): $name => $path"
        fi
    done <<< "$out"
    [ $n -gt 0 ] || err "ldd $1 shows no MPI library"
}

# ---- NetPIPE -------------------------------------------------------------------------------
np_prog=/usr/bin/NPmpich2
check_ldd "$np_prog"
work=$(mktemp -d "$PWD/netpipe.XXXXXX")
out=$(cd "$work" && MPIR_CVAR_MM_REPORT_METHODS=1 timeout 200 "$MM_PREFIX/bin/mpiexec" -n 2 \
    ${preload[@]+"${preload[@]}"} "$np_prog" -i -u 1048576 2>&1)
rc=$?
echo "$out" | grep -vE '^ *[0-9]+: ' | head -40      # the per-size lines are many
echo "(NetPIPE: $(grep -cE '^ *[0-9]+: ' <<< "$out") message sizes, mpiexec status $rc)"
[ $rc -eq 0 ] || err "NetPIPE: mpiexec exited with status $rc"
grep -q "Integrity check passed" <<< "$out" || err "NetPIPE: no 'Integrity check passed'"
grep -q "Integrity check failed" <<< "$out" && err "NetPIPE: integrity check failed"
for r in 0 1; do
    grep -qx "mm: rank $r talks to rank $((1 - r)) via shm" <<< "$out" ||
        err "NetPIPE: no method report 'mm: rank $r talks to rank $((1 - r)) via shm'"
done
rm -rf "$work"

# ---- the BLACS tester (Fortran) ------------------------------------------------------------
bt=$(dpkg -L scalapack-mpi-test | grep -m1 '/mpich-tests/BLACS/xFbtest$')
[ -n "$bt" ] || { err "scalapack-mpi-test has no mpich-tests/BLACS/xFbtest"; bt=/nonexistent; }
if [ -e "$bt" ]; then
    check_ldd "$bt"
    ldd "$bt" | grep -q 'libmpichfort\.so\.12' || err "xFbtest does not link libmpichfort.so.12"
    work=$(mktemp -d "$PWD/blacs.XXXXXX")
    cp -L "$(dirname "$bt")"/*.dat "$work/"
    # Only the integer and double precision tests ('I' 'D' of the 5 precisions): the full
    # set takes several minutes here.
    sed -i -e 's/^5\( *Number of precisions\)/2\1/' \
           -e "s/^'I' 'S' 'D' 'C' 'Z'\( *Values for precision\)/'I' 'D'            \1/" "$work/bt.dat"
    grep -q "^2 .*Number of precisions" "$work/bt.dat" && grep -q "^'I' 'D' .*Values for precision" "$work/bt.dat" ||
        err "could not cut bt.dat down to the I and D tests: $(cat "$work/bt.dat")"
    start=$SECONDS
    out=$(cd "$work" && timeout 300 "$MM_PREFIX/bin/mpiexec" -n "$np" ${preload[@]+"${preload[@]}"} "$bt" 2>&1)
    rc=$?
    echo "$out" | tail -60
    echo "(xFbtest on $np processes: mpiexec status $rc after $((SECONDS - start)) s)"
    # The tester ends with BLACS_ABORT, so a non-zero status alone is no failure (255 is
    # what the abort leaves); a timeout (124) or a signal is.
    [ $rc -eq 124 ] && err "xFbtest timed out"
    [ $rc -gt 128 ] && [ $rc -ne 255 ] && err "xFbtest ended with status $rc"
    # Each test group prints "... TESTS: BEGIN." and then either "... TESTS: PASSED ALL n
    # TESTS." or "... TESTS: n TESTS; n PASSED, n SKIPPED, n FAILED."; the auxiliary tests
    # (a group of their own) print "PASSED  NAME" or "FAILED  NAME", and the last of them
    # calls BLACS_ABORT.
    nbegin=$(grep 'TESTS: BEGIN\.' <<< "$out" | grep -vc '^AUXILIARY')
    summaries=$(grep -E 'TESTS: PASSED ALL|TESTS;.*FAILED\.' <<< "$out")
    nsum=$(grep -c . <<< "$summaries")
    [ "$nsum" -gt 0 ] && [ "$nsum" -eq "$nbegin" ] ||
        err "xFbtest: $nbegin test groups began, $nsum summaries"
    bad=$(grep -vE 'PASSED ALL|[^0-9]0 FAILED\.' <<< "$summaries")
    [ -z "$bad" ] || err "xFbtest reports failures: $bad"
    grep -E '^ *FAILED |ERROR' <<< "$out" && err "xFbtest reports failed or impossible tests"
    grep -q "^ *INTEGER SDRV TESTS:" <<< "$out" && grep -q "^ *DOUBLE PRECISION SDRV TESTS:" <<< "$out" ||
        err "xFbtest did not run both the INTEGER and the DOUBLE PRECISION tests"
    grep -q "PASSED  BLACS_SET/BLACS_GET TESTS" <<< "$out" &&
        grep -q "final auxiliary test is for BLACS_ABORT" <<< "$out" ||
        err "xFbtest did not get through its auxiliary tests to the BLACS_ABORT one"
    echo "(xFbtest: $nsum summaries)"
    rm -rf "$work"
fi

if [ $errors -eq 0 ]; then echo " No Errors"; else echo " Found $errors errors"; exit 1; fi
