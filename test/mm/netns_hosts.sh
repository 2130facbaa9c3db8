#!/usr/bin/env bash
# netns_hosts: a real multi-host run on one machine. Two "hosts" are network namespaces
# joined by a veth link, each with a link-local address that exists only on that link and,
# through a UTS namespace, its own hostname. Hydra's mpiexec runs on the first host and
# starts the proxy of the second through a launcher wrapper that enters its namespaces, so
# ranks on different hosts can only talk tcp over the veth link. The test never addresses
# anything outside the namespaces it made, and removes them even when it fails.
#
# Needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN), iproute2 and unshare; exits 77 where it
# cannot create namespaces.
set -u
bin=$MM_TEST_BIN
skip() { echo "skipped: $*"; exit 77; }

. "$MM_TEST_SRC/netns_lib.sh"

"$MM_PREFIX/bin/mpicc" -O2 -o "$bin/hosts_exchange" "$MM_TEST_SRC/hosts_exchange.c" || exit 1

np=4
out=$(timeout 300 ip netns exec "${hosts[0]}" unshare --uts sh -c \
    "hostname ${hosts[0]} && exec '$MM_PREFIX/bin/mpiexec' -launcher rsh -launcher-exec '$work/launch' \
     -hosts ${hosts[0]}:2,${hosts[1]}:2 -n $np -genv MPIR_CVAR_MM_REPORT_METHODS 1 '$bin/hosts_exchange'" 2>&1)
rc=$?
echo "$out"
errors=0
[ $rc -eq 0 ] || { echo "mpiexec exited with status $rc"; errors=$((errors + 1)); }
# ranks 0,1 on the first host, 2,3 on the second
for r in 0 1 2 3; do
    h=${hosts[$(( r / 2 ))]}
    grep -qx "rank $r runs on $h" <<< "$out" || { echo "expected: rank $r runs on $h"; errors=$((errors + 1)); }
done
for pair in "0 1 shm" "0 2 tcp" "1 3 tcp" "2 3 shm" "3 0 tcp"; do
    set -- $pair
    grep -qx "mm: rank $1 talks to rank $2 via $3" <<< "$out" ||
        { echo "expected: rank $1 talks to rank $2 via $3"; errors=$((errors + 1)); }
done
grep -qx " No Errors" <<< "$out" || errors=$((errors + 1))
[ $errors -eq 0 ] || { echo " Found $errors errors"; exit 1; }
