#!/usr/bin/env bash
# peer_death: kill -9 one rank of a running job; mpiexec must exit non-zero within 10 s,
# whichever method carried the traffic (shm, tcp, and a mixed two-fake-node job).
# Run by maint/run-tests with MM_PREFIX, MM_TEST_SRC and MM_TEST_BIN set.
set -u
bin=$MM_TEST_BIN
"$MM_PREFIX/bin/mpicc" -O2 -o "$bin/spin_ring" "$MM_TEST_SRC/spin_ring.c" || exit 1
errors=0

run_case() {    # LABEL ENV...
    local label=$1; shift
    local dir; dir=$(mktemp -d)
    env "$@" "$MM_PREFIX/bin/mpiexec" -n 3 "$bin/spin_ring" "$dir" > "$dir/out" 2>&1 &
    local mpiexec_pid=$! t=0
    # wait for every rank to be running its loop
    while [ "$(ls "$dir"/pid.* 2>/dev/null | wc -l)" -lt 3 ]; do
        sleep 0.2; t=$((t + 1))
        if [ $t -gt 300 ] || ! kill -0 $mpiexec_pid 2>/dev/null; then
            echo "$label: the job did not start its ring"; sed 's/^/  | /' "$dir/out" | tail -20
            kill -9 $mpiexec_pid 2>/dev/null; errors=$((errors + 1)); rm -rf "$dir"; return
        fi
    done
    local victim; victim=$(cat "$dir/pid.1")
    local start; start=$(date +%s%N)
    kill -9 "$victim"
    # give it 10 s, then look
    local waited=0
    while kill -0 $mpiexec_pid 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $mpiexec_pid 2>/dev/null; then
        echo "$label: mpiexec still running 10 s after rank 1 was killed"
        kill -9 $mpiexec_pid; pkill -9 -f "$bin/spin_ring $dir"
        errors=$((errors + 1))
    else
        wait $mpiexec_pid; local rc=$?
        local ms=$(( ($(date +%s%N) - start) / 1000000 ))
        if [ $rc -eq 0 ]; then
            echo "$label: mpiexec exited 0 although rank 1 was killed"; errors=$((errors + 1))
        else
            echo "$label: mpiexec exited with status $rc, $ms ms after the kill"
        fi
    fi
    pkill -9 -f "$bin/spin_ring $dir" 2>/dev/null
    rm -rf "$dir"
}

run_case shm MPIR_CVAR_MM_METHODS=self,shm
run_case tcp MPIR_CVAR_MM_METHODS=self,tcp
run_case mixed MPIR_CVAR_NUM_CLIQUES=2
[ $errors -eq 0 ] && echo " No Errors"
exit $errors
