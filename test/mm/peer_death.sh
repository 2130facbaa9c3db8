#!/usr/bin/env bash
# peer_death: one rank of a running job dies; mpiexec must exit non-zero within 10 s of it,
# whichever method carried the traffic (shm, tcp, and a mixed two-fake-node job). Rank 1
# either is killed with SIGKILL during a message ring, or leaves by itself with _exit(0) and
# no MPI_Finalize in the middle of a passive-target RMA epoch (holding a lock) or between
# two collectives (spin_ring.c): its peers must get an error, not wait for it forever (for
# that case mpiexec runs with -disable-auto-cleanup, so the error is the device's doing).
# Run by maint/run-tests with MM_PREFIX, MM_TEST_SRC and MM_TEST_BIN set.
# PEER_DEATH_METHODS: the cases to run (default "shm tcp mixed"; test/mm/testlist.ib sets
# "ib": every pair over ib, in maint/ib-vm). A spin_ring already built (newer than its
# source: run-tests' MM_TEST_BUILD_ONLY builds it from the prebuild line) is used as it is.
# prebuild: spin_ring
set -u
bin=$MM_TEST_BIN
[ "$bin/spin_ring" -nt "$MM_TEST_SRC/spin_ring.c" ] && [ "$bin/spin_ring" -nt "$MM_TEST_SRC/mmtest.h" ] ||
    "$MM_PREFIX/bin/mpicc" -O2 -o "$bin/spin_ring" "$MM_TEST_SRC/spin_ring.c" || exit 1
errors=0

run_case() {    # LABEL MODE kill|exit ENV...
    local label="$1 $2 $3" mode=$2 how=$3; shift 3
    local dir; dir=$(mktemp -d)
    # A rank that leaves by itself: mpiexec is told to leave the others alone (and they
    # ignore the SIGUSR1 by which hydra then reports the exit), so that ending the job is up
    # to the device: each survivor must get an MPI error and say so.
    local opts=()
    [ "$how" = exit ] && opts=(-disable-auto-cleanup) && set -- "$@" SPIN_IGNORE_USR1=1
    env "$@" "$MM_PREFIX/bin/mpiexec" "${opts[@]}" -n 3 "$bin/spin_ring" "$dir" $mode $how > "$dir/out" 2>&1 &
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
    if [ "$how" = kill ]; then
        kill -9 "$victim"
    else    # let rank 1 leave by itself, and wait for it to
        touch "$dir/go"
        t=0
        while kill -0 "$victim" 2>/dev/null && [ $t -lt 300 ]; do sleep 0.1; t=$((t + 1)); done
        start=$(date +%s%N)
    fi
    # give it 10 s, then look
    local waited=0
    while kill -0 $mpiexec_pid 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    if kill -0 $mpiexec_pid 2>/dev/null; then
        echo "$label: mpiexec still running 10 s after rank 1 died"; sed 's/^/  | /' "$dir/out" | tail -5
        kill -9 $mpiexec_pid; pkill -9 -f "$bin/spin_ring $dir"
        errors=$((errors + 1))
    else
        wait $mpiexec_pid; local rc=$?
        local ms=$(( ($(date +%s%N) - start) / 1000000 ))
        if [ $rc -eq 0 ] && [ "$how" = kill ]; then
            echo "$label: mpiexec exited 0 although rank 1 died"; errors=$((errors + 1))
        elif [ $rc -eq 0 ]; then
            # -disable-auto-cleanup: hydra's status is then not the survivors' (seen: 0
            # while both had exited with 3); what counts is their error, checked below.
            echo "$label: mpiexec exited with status 0, $ms ms after rank 1 left"
        else
            echo "$label: mpiexec exited with status $rc, $ms ms after rank 1 died"
        fi
        if [ "$how" = exit ]; then
            # The survivors' errors (printed by spin_ring, or by MPICH's abort when a
            # collective's error arrives fatal) must name a loss the device noticed: most
            # often rank 1's, but a survivor that ended on its error is lost to the other
            # as well, and when that other one aborts, hydra may end the job before it has
            # forwarded the first one's line (seen about 1 run in 16); then the second
            # survivor's error, naming the first, is what shows.
            local seen; seen=$(grep -hoE "Process [0-2] \(pid [0-9]+\) of this node ended without calling MPI_Finalize|(tcp|ib) connection to process [0-2] was lost" "$dir/out" | sort -u | head -1)
            if [ -n "$seen" ]; then
                echo "  survivors' error: $seen"
            else
                echo "$label: no survivor reported the loss of rank 1"; sed 's/^/  | /' "$dir/out" | tail -8
                errors=$((errors + 1))
            fi
        fi
        # and took the survivors with it
        t=0
        while pgrep -f "$bin/spin_ring $dir" > /dev/null && [ $t -lt 20 ]; do sleep 0.1; t=$((t + 1)); done
        if pgrep -f "$bin/spin_ring $dir" > /dev/null; then
            echo "$label: ranks still running 2 s after mpiexec exited"; errors=$((errors + 1))
        fi
    fi
    pkill -9 -f "$bin/spin_ring $dir" 2>/dev/null
    rm -rf "$dir"
}

for how in "ring kill" "rma exit" "coll exit"; do
    for m in ${PEER_DEATH_METHODS:-shm tcp mixed}; do
        case $m in
            shm|tcp|ib) run_case $m $how MPIR_CVAR_MM_METHODS=self,$m ;;
            mixed) run_case mixed $how MPIR_CVAR_NUM_CLIQUES=2 ;;
            *) echo "PEER_DEATH_METHODS: unknown case '$m'"; exit 1 ;;
        esac
    done
done
[ $errors -eq 0 ] && echo " No Errors"
exit $errors
