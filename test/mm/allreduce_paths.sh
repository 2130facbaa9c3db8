#!/usr/bin/env bash
# allreduce_paths: MPI_Allreduce gives the reference result (allreduce_ops.c) on each path
# the device's slice-owner algorithm by reads (coll/mm_allreduce.c; on one node it runs
# only with the node segment's path switched off, as here) can take or refuse: taken (4
# processes of a node, CMA allowed); refused by one process only (its
# MPIR_CVAR_MM_SHM_CMA=0: its registrations decline, and every process must agree to run
# MPIR's algorithm instead); refused by the kernel at the first read (cma_shim.c denies
# process_vm_readv: the reads fail before any input changed, and everyone falls back).
set -u
bin=$MM_TEST_BIN
gcc -O2 -shared -fPIC -o "$bin/cma_shim.so" "$MM_TEST_SRC/cma_shim.c" -ldl || exit 1
"$MM_PREFIX/bin/mpicc" -O2 -I"$MM_TEST_SRC" -o "$bin/allreduce_ops" "$MM_TEST_SRC/allreduce_ops.c" || exit 1
asan_rt=$(ldd "$MM_PREFIX/lib/libmpich.so.12" | awk '/libasan/ { print $3 }')
fail=0
export MPIR_CVAR_MM_REDUCE_SHM_MIN=-1

check() {   # check NAME OUTPUT-FILE
    if grep -q "No Errors" "$2"; then echo "allreduce_paths: $1: ok"
    else echo "allreduce_paths: $1: FAILED"; cat "$2"; fail=1; fi
}

"$MM_PREFIX/bin/mpiexec" -n 1 -env MPIR_CVAR_MM_SHM_CMA 0 "$bin/allreduce_ops" : \
    -n 3 "$bin/allreduce_ops" > "$bin/ar_mixed.out" 2>&1
check "one process without CMA" "$bin/ar_mixed.out"
MM_CMA_SHIM=deny "$MM_PREFIX/bin/mpiexec" -n 4 \
    -genv LD_PRELOAD "${asan_rt:+$asan_rt:}$bin/cma_shim.so" "$bin/allreduce_ops" \
    > "$bin/ar_deny.out" 2>&1
check "CMA refused by the kernel" "$bin/ar_deny.out"
[ $fail -eq 0 ] && echo " No Errors"
exit $fail
