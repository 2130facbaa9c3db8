#!/usr/bin/env bash
# mixed_methods: 4 processes split into two fake nodes (MPIR_CVAR_NUM_CLIQUES=2, round
# robin: ranks 0,2 on one, 1,3 on the other). Each pair must use shm inside a node and tcp
# across, as the method report says; allpairs then moves data over both at once.
# MIXED_ACROSS: the method wanted across the nodes (default tcp; test/mm/testlist.ib sets ib
# together with MPIR_CVAR_MM_METHODS=self,shm,ib). An allpairs already built (newer than its
# source and mmtest.h: run-tests' MM_TEST_BUILD_ONLY builds it) is used as it is.
# prebuild: allpairs
set -u
bin=$MM_TEST_BIN
across=${MIXED_ACROSS:-tcp}
[ "$bin/allpairs" -nt "$MM_TEST_SRC/allpairs.c" ] && [ "$bin/allpairs" -nt "$MM_TEST_SRC/mmtest.h" ] ||
    "$MM_PREFIX/bin/mpicc" -O2 -o "$bin/allpairs" "$MM_TEST_SRC/allpairs.c" || exit 1
out=$(MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_MM_REPORT_METHODS=1 "$MM_PREFIX/bin/mpiexec" -n 4 "$bin/allpairs" 2>&1)
rc=$?
echo "$out"
errors=0
[ $rc -eq 0 ] || { echo "mpiexec exited with status $rc"; errors=$((errors + 1)); }
for r in 0 1 2 3; do
    for p in 0 1 2 3; do
        [ $r -eq $p ] && continue
        if [ $(( (r + p) % 2 )) -eq 0 ]; then want=shm; else want=$across; fi
        grep -qx "mm: rank $r talks to rank $p via $want" <<< "$out" ||
            { echo "expected: rank $r talks to rank $p via $want"; errors=$((errors + 1)); }
    done
done
grep -qx " No Errors" <<< "$out" || errors=$((errors + 1))
[ $errors -eq 0 ] || { echo " Found $errors errors"; exit 1; }
