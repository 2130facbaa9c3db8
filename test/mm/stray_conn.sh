#!/usr/bin/env bash
# stray_conn: strangers connect to the listening tcp ports of a running job (stray_conn.py:
# random bytes, HTTP, zeros, handshakes with the wrong secret, a silent connection held
# open) while its ranks pass checked messages over tcp (stray_target.c). The job must finish
# with every payload right, each stranger must be closed without an answer, and with
# MPIR_CVAR_MM_REPORT_METHODS=1 a process says once that it refused a connection.
set -u
bin=$MM_TEST_BIN
np=${NP:-3}
"$MM_PREFIX/bin/mpicc" -O2 -I"$MM_TEST_SRC" -o "$bin/stray_target" "$MM_TEST_SRC/stray_target.c" || exit 1
hdr=$MM_TEST_SRC/../../src/mpid/mm/methods/tcp/tcp_impl.h
magic=$(sed -n 's/^#define TCP_HELLO_MAGIC \(0x[0-9a-f]*\)u.*/\1/p' "$hdr")
version=$(sed -n 's/^#define TCP_WIRE_VERSION \([0-9]*\).*/\1/p' "$hdr")
[ -n "$magic" ] && [ -n "$version" ] || { echo "cannot read the handshake constants from $hdr"; exit 1; }

log=$bin/stray_conn.job.log
stop=$bin/stray_conn.stop
rm -f "$stop"
MMT_STOP_FILE=$stop MMT_SECONDS=90 "$MM_PREFIX/bin/mpiexec" -genv MPIR_CVAR_MM_METHODS self,tcp \
    -genv MPIR_CVAR_MM_REPORT_METHODS 1 -n "$np" "$bin/stray_target" > "$log" 2>&1 < /dev/null &
job=$!
# Attack once every process listens: rank 0 says "ready" after a barrier of all of them
# (started at once, the attacker found only the first one's port under ASan's slow start).
t=0
until grep -q "^ready" "$log" 2>/dev/null || [ $t -ge 600 ] || ! kill -0 $job 2>/dev/null; do
    sleep 0.1; t=$((t + 1))
done
python3 "$MM_TEST_SRC/stray_conn.py" stray_target "$magic" "$version" > "$bin/stray_conn.attack.log" 2>&1
attack_rc=$?
touch "$stop"   # the job may end now
wait $job
job_rc=$?
cat "$bin/stray_conn.attack.log"
echo "--- job output (exit $job_rc) ---"
grep -v "talks to" "$log"
fail=0
[ $attack_rc = 0 ] || { echo "FAIL: the attack script exited $attack_rc"; fail=1; }
[ $job_rc = 0 ] || { echo "FAIL: the job exited $job_rc"; fail=1; }
grep -q "^ No Errors" "$log" || { echo "FAIL: the job did not report No Errors"; fail=1; }
# Every stranger is closed (or reset) without a byte back; none is kept open but the one
# that has not finished its handshake (it may still be coming; it costs the job nothing).
if grep -v "half a HELLO" "$bin/stray_conn.attack.log" |
        grep -E -- "-> ([0-9]+ bytes back|open after)"; then
    echo "FAIL: a stranger got an answer or was kept open"; fail=1
fi
n=$(grep -c -- "->" "$bin/stray_conn.attack.log")
[ "$n" -ge $((9 * np)) ] || { echo "FAIL: only $n attempts were made"; fail=1; }
grep -q "refused a tcp connection" "$log" || { echo "FAIL: no process reported a refused connection"; fail=1; }
[ $fail = 0 ] && echo " No Errors"
exit $fail
