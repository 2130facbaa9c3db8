#!/usr/bin/env bash
# cma_paths: large messages between processes of one node take the single-copy path
# (MPIR_CVAR_MM_SHM_CMA, on by default): the receiver reads with process_vm_readv and the
# sender, waiting in MPI, writes its share of the chunks with process_vm_writev. They arrive
# intact through cells when the kernel refuses CMA, intact when only the sender's writes are
# refused (the receiver copies those chunks itself), and with MPIR_CVAR_MM_SHM_CMA=0 CMA is
# never touched. allpairs.c (every size from 0 B to 4 MiB, all pairs at once) checks the
# data; cma_shim.c counts the calls or refuses them.
set -u
bin=$MM_TEST_BIN
gcc -O2 -shared -fPIC -o "$bin/cma_shim.so" "$MM_TEST_SRC/cma_shim.c" -ldl || exit 1
"$MM_PREFIX/bin/mpicc" -O2 -o "$bin/allpairs" "$MM_TEST_SRC/allpairs.c" || exit 1
# A sanitized install (MM_SANITIZE=address,...) wants ASan's runtime first in the library
# list, so it goes ahead of the shim in LD_PRELOAD.
asan_rt=$(ldd "$MM_PREFIX/lib/libmpich.so.12" | awk '/libasan/ { print $3 }')
log=$bin/cma_shim.calls
fail=0

run() {     # run NAME EXPECT [VAR=VALUE ...]: allpairs on 4 processes under the shim
    local name=$1 expect=$2; shift 2
    rm -f "$log"
    if ! env "$@" MM_CMA_SHIM_LOG="$log" "$MM_PREFIX/bin/mpiexec" -n 4 \
            -genv LD_PRELOAD "${asan_rt:+$asan_rt:}$bin/cma_shim.so" "$bin/allpairs" > "$bin/cma_shim.out" 2>&1 ||
        ! grep -q "No Errors" "$bin/cma_shim.out"; then
        echo "cma_paths: $name: allpairs failed:"; cat "$bin/cma_shim.out"; fail=1; return
    fi
    local ok denied wok wdenied
    ok=$(grep -c '^ok$' "$log" 2>/dev/null); denied=$(grep -c '^denied$' "$log" 2>/dev/null)
    wok=$(grep -c '^wok$' "$log" 2>/dev/null); wdenied=$(grep -c '^wdenied$' "$log" 2>/dev/null)
    ok=${ok:-0}; denied=${denied:-0}; wok=${wok:-0}; wdenied=${wdenied:-0}
    echo "cma_paths: $name: $ok reads, $denied refused; $wok writes, $wdenied refused"
    case $expect in
        # In allpairs' one-way phase the senders wait in MPI_Waitall while their payloads
        # are read, so they help.
        shared) [ "$ok" -gt 0 ] && [ "$denied" -eq 0 ] && [ "$wok" -gt 0 ] &&
                    [ "$wdenied" -eq 0 ] || { echo "  expected CMA reads and writes"; fail=1; } ;;
        # Each of the 12 ordered pairs probes once, then sends through cells.
        refused) [ "$ok" -eq 0 ] && [ "$denied" -ge 1 ] && [ "$denied" -le 12 ] &&
                     [ "$wok" -eq 0 ] && [ "$wdenied" -eq 0 ] ||
                     { echo "  expected 1..12 refused probes and no reads or writes"; fail=1; } ;;
        # Each sender stops helping on a VC after its first refused write.
        readonly) [ "$ok" -gt 0 ] && [ "$denied" -eq 0 ] && [ "$wok" -eq 0 ] &&
                      [ "$wdenied" -ge 1 ] && [ "$wdenied" -le 12 ] ||
                      { echo "  expected reads and 1..12 refused writes"; fail=1; } ;;
        none)   [ $((ok + denied + wok + wdenied)) -eq 0 ] ||
                    { echo "  expected no CMA at all"; fail=1; } ;;
    esac
}

run "CMA allowed (the default)" shared
run "CMA refused by the kernel" refused MM_CMA_SHIM=deny
run "the sender's writes refused" readonly MM_CMA_SHIM=deny-write
run "MPIR_CVAR_MM_SHM_CMA=0" none MPIR_CVAR_MM_SHM_CMA=0
[ $fail -eq 0 ] && echo " No Errors"
exit $fail
