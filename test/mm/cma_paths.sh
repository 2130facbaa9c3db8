#!/usr/bin/env bash
# cma_paths: with MPIR_CVAR_MM_SHM_CMA=1, large messages between processes of one node take
# the single-copy path (process_vm_readv) when the kernel allows it and arrive intact
# through cells when it does not; by default (CMA off) it is never touched. allpairs.c
# (every size from 0 B to
# 4 MiB, all pairs at once) checks the data; cma_shim.c counts the calls or refuses them.
set -u
bin=$MM_TEST_BIN
gcc -O2 -shared -fPIC -o "$bin/cma_shim.so" "$MM_TEST_SRC/cma_shim.c" -ldl || exit 1
"$MM_PREFIX/bin/mpicc" -O2 -o "$bin/allpairs" "$MM_TEST_SRC/allpairs.c" || exit 1
log=$bin/cma_shim.calls
fail=0

run() {     # run NAME EXPECT [VAR=VALUE ...]: allpairs on 4 processes under the shim
    local name=$1 expect=$2; shift 2
    rm -f "$log"
    if ! env "$@" MM_CMA_SHIM_LOG="$log" "$MM_PREFIX/bin/mpiexec" -n 4 \
            -genv LD_PRELOAD "$bin/cma_shim.so" "$bin/allpairs" > "$bin/cma_shim.out" 2>&1 ||
        ! grep -q "No Errors" "$bin/cma_shim.out"; then
        echo "cma_paths: $name: allpairs failed:"; cat "$bin/cma_shim.out"; fail=1; return
    fi
    local ok denied
    ok=$(grep -c '^ok$' "$log" 2>/dev/null); denied=$(grep -c '^denied$' "$log" 2>/dev/null)
    ok=${ok:-0}; denied=${denied:-0}
    echo "cma_paths: $name: $ok reads, $denied refused"
    case $expect in
        reads)  [ "$ok" -gt 0 ] && [ "$denied" -eq 0 ] || { echo "  expected CMA reads"; fail=1; } ;;
        # Each of the 12 ordered pairs probes once, then sends through cells.
        refused) [ "$ok" -eq 0 ] && [ "$denied" -ge 1 ] && [ "$denied" -le 12 ] ||
                     { echo "  expected 1..12 refused probes and no reads"; fail=1; } ;;
        none)   [ "$ok" -eq 0 ] && [ "$denied" -eq 0 ] || { echo "  expected no CMA at all"; fail=1; } ;;
    esac
}

run "CMA allowed" reads MPIR_CVAR_MM_SHM_CMA=1
run "CMA refused by the kernel" refused MPIR_CVAR_MM_SHM_CMA=1 MM_CMA_SHIM=deny
run "MPIR_CVAR_MM_SHM_CMA=0 (the default)" none
[ $fail -eq 0 ] && echo " No Errors"
exit $fail
