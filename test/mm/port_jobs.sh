#!/usr/bin/env bash
# port_jobs: two jobs started by two separate mpiexec commands meet through a port that the
# server publishes with hydra's name server and the client looks up (port_jobs.c says what
# is checked). PORT_JOBS_HOSTS=2 puts each job on its own "host" (netns_lib.sh: network
# namespaces joined by a veth link), so the jobs can only reach each other over tcp;
# otherwise both run here. Job sizes: server 2, client NP - 2 (at least 1).
set -u
bin=$MM_TEST_BIN
skip() { echo "skipped: $*"; exit 77; }
np_client=$(( ${NP:-3} - 2 ))
[ $np_client -ge 1 ] || np_client=1
name=mm-port-jobs-$$
port=$(( 20000 + $$ % 20000 ))

"$MM_PREFIX/bin/mpicc" -O2 -o "$bin/port_jobs" "$MM_TEST_SRC/port_jobs.c" || exit 1

if [ "${PORT_JOBS_HOSTS:-1}" = 2 ]; then
    . "$MM_TEST_SRC/netns_lib.sh"
    where=("in_host ${hosts[0]}" "in_host ${hosts[1]}")
    ns_host=${hosts[0]}
    job_hosts=("${hosts[0]}" "${hosts[1]}")
else
    work=$(mktemp -d)
    trap 'kill $ns_pid 2>/dev/null; rm -rf "$work"' EXIT
    where=("" "")
    ns_host=localhost
    job_hosts=(localhost localhost)
fi

# The name server both jobs use; it lives on the server's host.
${where[0]} "$MM_PREFIX/bin/hydra_nameserver" -port $port > "$work/ns.log" 2>&1 &
ns_pid=$!
sleep 1

run_job() {     # host-index role nprocs
    ${where[$1]} timeout 200 "$MM_PREFIX/bin/mpiexec" -hosts "${job_hosts[$1]}" \
        -nameserver "$ns_host:$port" -genv MPIR_CVAR_MM_REPORT_METHODS 1 \
        -n "$3" "$bin/port_jobs" "$2" "$name"
}
run_job 0 server 2 > "$work/server.log" 2>&1 &
server_pid=$!
run_job 1 client $np_client > "$work/client.log" 2>&1
client_rc=$?
wait $server_pid
server_rc=$?
kill $ns_pid 2>/dev/null

# (indented, so that only this script's verdict is a " No Errors" line)
echo "== server (2 processes on ${job_hosts[0]}), exit status $server_rc"; sed 's/^/  | /' "$work/server.log"
echo "== client ($np_client processes on ${job_hosts[1]}), exit status $client_rc"; sed 's/^/  | /' "$work/client.log"
errors=0
for role in server client; do
    grep -qx " No Errors" "$work/$role.log" || { echo "the $role job did not pass"; errors=$((errors + 1)); }
done
[ $server_rc -eq 0 ] && [ $client_rc -eq 0 ] || errors=$((errors + 1))
# Every client process reached every server process, over tcp (the only method between jobs).
for r in $(seq 0 $((np_client - 1))); do
    for s in 0 1; do
        grep -qE "^mm: rank $r talks to rank $s of job [0-9a-f]{8} via tcp$" "$work/client.log" ||
            { echo "expected: client rank $r talks to server rank $s via tcp"; errors=$((errors + 1)); }
    done
done
[ $errors -eq 0 ] && echo " No Errors" || { echo " Found $errors errors"; exit 1; }
