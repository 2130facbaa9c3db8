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

command -v ip > /dev/null || skip "iproute2 (ip) is not installed"
command -v unshare > /dev/null || skip "unshare (util-linux) is not installed"
[ "$(id -u)" -eq 0 ] || skip "creating network namespaces needs root"

tag=mm$$
hosts=(${tag}a ${tag}b)          # namespace names double as hostnames
net=169.254.$(( (($$ / 256) % 200) + 20 )).$(( ($$ % 64) * 4 ))
addr=("${net%.*}.$(( ${net##*.} + 1 ))" "${net%.*}.$(( ${net##*.} + 2 ))")
work=$(mktemp -d)

cleanup() {
    for h in "${hosts[@]}"; do
        ip netns pids "$h" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$h" 2>/dev/null
        rm -rf "/etc/netns/$h"
    done
    ip link del "${tag}va" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

for h in "${hosts[@]}"; do
    ip netns add "$h" 2>"$work/err" || skip "ip netns add failed: $(cat "$work/err")"
    ip -n "$h" link set lo up
    # ip netns exec bind-mounts /etc/netns/NAME/hosts over /etc/hosts: each host resolves
    # both hostnames to the link's addresses, and nothing else changes.
    mkdir -p "/etc/netns/$h"
    printf '127.0.0.1 localhost\n%s %s\n%s %s\n' "${addr[0]}" "${hosts[0]}" "${addr[1]}" \
        "${hosts[1]}" > "/etc/netns/$h/hosts"
done
ip link add "${tag}va" type veth peer name "${tag}vb" 2>"$work/err" ||
    skip "cannot create a veth pair: $(cat "$work/err")"
ip link set "${tag}va" netns "${hosts[0]}"
ip link set "${tag}vb" netns "${hosts[1]}"
ip -n "${hosts[0]}" addr add "${addr[0]}/30" dev "${tag}va"
ip -n "${hosts[1]}" addr add "${addr[1]}/30" dev "${tag}vb"
ip -n "${hosts[0]}" link set "${tag}va" up
ip -n "${hosts[1]}" link set "${tag}vb" up

# Hydra's rsh launcher runs: WRAPPER HOST "PROXY" ARGS...; the command is meant for a
# remote shell, hence sh -c.
cat > "$work/launch" <<WRAP
#!/bin/sh
host=\$1; shift
exec ip netns exec "\$host" unshare --uts sh -c "hostname \$host && exec \$*"
WRAP
chmod +x "$work/launch"

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
